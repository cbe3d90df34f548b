import {
  CreateWorkflowBody,
  TrellisError,
  UpdateWorkflowBody,
  Workflow,
  WorkflowList,
  WorkflowParams,
  WorkflowRules,
  workflowForType,
} from '@trelliscms/core';
import { listTypes } from '../content/type-repository';
import type { GraphReader } from '../engines/port';
import { listSiteResources, type SiteResourceSpec } from '../site-resources/site-resources';

/**
 * The stored workflows of a site (`/api/workflows`, docs/workflows.md), one `Workflow` node each,
 * written through the generic site-resource routes. Only admins change them (`site:update`):
 * a workflow decides who may publish, so the roles it limits must not be able to rewrite it.
 * A type is named by at most one workflow, and at most one workflow names no types (the
 * site's catch-all); both are checked on every write (409 `conflict`).
 */
export const WORKFLOWS: SiteResourceSpec = {
  base: 'workflows',
  label: 'Workflow',
  key: 'name',
  item: Workflow,
  list: WorkflowList,
  create: CreateWorkflowBody,
  update: UpdateWorkflowBody,
  params: WorkflowParams,
  rules: WorkflowRules,
  writePermission: 'site:update',
  check: checkWorkflowClaims,
};

/** The site's stored workflows, by name. */
export async function listWorkflows(reader: GraphReader): Promise<Workflow[]> {
  return (await listSiteResources(reader, WORKFLOWS)) as Workflow[];
}

/** The workflow the items of `typeName` follow (the built-in default when no stored one covers it). */
export async function workflowOfType(reader: GraphReader, typeName: string): Promise<Workflow> {
  return workflowForType(await listWorkflows(reader), typeName);
}

/** Refuses a workflow naming a type another workflow names, or a second catch-all, or an unknown type. */
async function checkWorkflowClaims(reader: GraphReader, resource: Record<string, unknown>): Promise<void> {
  const name = String(resource.name);
  if (name === 'default') {
    throw TrellisError.of('conflict', {
      detail:
        'The name `default` is the built-in workflow (draft ⇄ published) every type without a workflow follows; give yours another name.',
    });
  }
  const others = (await listWorkflows(reader)).filter((workflow) => workflow.name !== name);
  const types = resource.types as string[] | undefined;
  if (types === undefined) {
    const catchAll = others.find((workflow) => workflow.types === undefined);
    if (catchAll) {
      throw TrellisError.of('conflict', {
        detail: `Workflow \`${catchAll.name}\` already applies to every type no workflow names; give this one \`types\`, or change that one.`,
      });
    }
    return;
  }
  const known = new Set((await listTypes(reader)).map((type) => type.name));
  const unknown = types.filter((type) => !known.has(type));
  if (unknown.length > 0) {
    throw TrellisError.of('validation_failed', {
      detail: `body.types: the site has no content type ${unknown.map((type) => `\`${type}\``).join(', ')} (GET /api/types lists them)`,
    });
  }
  for (const type of types) {
    const holder = others.find((workflow) => workflow.types?.includes(type));
    if (holder) {
      throw TrellisError.of('conflict', {
        detail: `Type \`${type}\` already follows workflow \`${holder.name}\`; a type follows one workflow. Take it out of that one first.`,
      });
    }
  }
}
