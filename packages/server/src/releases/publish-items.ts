import { type Environment, TrellisError } from '@trelliscms/core';
import { CONTENT_LABEL, splitItemProps, typeOfId } from '../content/item-record';
import type { Graph, GraphReader, GraphWriter } from '../engines/port';
import { listEnvironments } from './environments';
import { applyLiveChanges, LIVE_ITEM_LABEL, type LiveCause, type LiveTarget } from './live-state';

/** How many items one bulk publish or unpublish takes at most. */
export const BULK_PUBLISH_MAX = 10_000;

/**
 * The environment publishing goes to when none is named: the lowest-order environment above
 * `env:dev` (`env:prod` unless the site added one in between, e.g. `env:staging` with order
 * 1 before prod moved to 2). Publishing to dev is allowed when named, but dev builds heads anyway.
 */
export async function defaultPublishEnvironment(reader: GraphReader): Promise<Environment> {
  const environments = await listEnvironments(reader);
  const dev = environments.find((env) => env.id === 'env:dev');
  const above = environments.filter((env) => env.id !== 'env:dev' && env.order >= (dev?.order ?? 0));
  return above[0] ?? (environments.find((env) => env.id === 'env:prod') as Environment);
}

export interface PublishOutcome {
  envId: string;
  /** Items whose live version changed, in the order given. */
  changed: string[];
  unchanged: number;
  /** The environment's live revision after the change (unchanged when nothing changed). */
  revision: number | null;
}

/**
 * Puts the head version of each item live in `environment` (publish), in one transaction and
 * one live revision, with one audit entry. Every id must name an existing content item (400
 * `business_rule` naming the missing ones otherwise; nothing is published).
 */
export async function publishItems({
  graph,
  environment,
  ids,
  actor,
  now,
  cause = 'publish',
  tx: outer,
  auditData,
}: {
  graph: Graph;
  environment: Environment;
  ids: readonly string[];
  actor: string;
  now: Date;
  cause?: LiveCause;
  /** Join this transaction instead of opening one. */
  tx?: GraphWriter;
  /** Extra data of the audit entry (e.g. the workflow move the publish is). */
  auditData?: Record<string, unknown>;
}): Promise<PublishOutcome> {
  const run = async (tx: GraphWriter): Promise<PublishOutcome> => {
    const unique = [...new Set(ids)];
    const nodes = await tx.getNodes(unique);
    const found = new Map(nodes.filter((n) => n.labels.includes(CONTENT_LABEL)).map((n) => [n.id, n]));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw TrellisError.of('business_rule', {
        detail: `${missing.length} item(s) do not exist, so nothing was published: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`,
      });
    }
    const targets: LiveTarget[] = unique.map((id) => {
      const { meta } = splitItemProps(found.get(id)!.props);
      return { itemId: id, type: typeOfId(id), version: meta.version, hash: meta.hash };
    });
    return change(tx, {
      environment,
      targets,
      actor,
      now,
      cause,
      action: 'content.publish',
      ids: unique,
      auditData,
    });
  };
  return outer ? run(outer) : graph.transaction(run);
}

/**
 * Takes items out of `environment`'s live state (unpublish): its next build gives them the
 * stub page. Items not live there are left alone (counted `unchanged`); deleted items still
 * live there (their versions kept by a release) can be taken down too.
 */
export async function unpublishItems({
  graph,
  environment,
  ids,
  actor,
  now,
  tx: outer,
  auditData,
}: {
  graph: Graph;
  environment: Environment;
  ids: readonly string[];
  actor: string;
  now: Date;
  /** Join this transaction instead of opening one. */
  tx?: GraphWriter;
  /** Extra data of the audit entry (e.g. the workflow move the unpublish is). */
  auditData?: Record<string, unknown>;
}): Promise<PublishOutcome> {
  const unique = [...new Set(ids)];
  const run = (tx: GraphWriter) =>
    change(tx, {
      environment,
      targets: unique.map((id) => ({ itemId: id, version: null, hash: null })),
      actor,
      now,
      cause: 'unpublish',
      action: 'content.unpublish',
      ids: unique,
      auditData,
    });
  return outer ? run(outer) : graph.transaction(run);
}

async function change(
  tx: GraphWriter,
  {
    environment,
    targets,
    actor,
    now,
    cause,
    action,
    ids,
    auditData,
  }: {
    environment: Environment;
    targets: LiveTarget[];
    actor: string;
    now: Date;
    cause: LiveCause;
    action: string;
    ids: string[];
    auditData?: Record<string, unknown> | undefined;
  },
): Promise<PublishOutcome> {
  const { revision, unchanged } = await applyLiveChanges(tx, {
    envId: environment.id,
    targets,
    cause,
    actor,
    at: now,
  });
  const changed = revision?.changes.map((c) => c.itemId) ?? [];
  if (changed.length > 0) {
    await tx.appendAudit({
      actor,
      action: ids.length === 1 ? action : `${action}.bulk`,
      target: ids.length === 1 ? (ids[0] as string) : environment.id,
      data: {
        env: environment.id,
        revision: revision?.seq ?? null,
        changed: changed.length,
        ...(ids.length === 1 ? { version: revision?.changes[0]?.version ?? null } : {}),
        ...auditData,
      },
    });
  }
  return { envId: environment.id, changed, unchanged, revision: revision?.seq ?? null };
}

/** Takes an item out of every environment it is live in (it is being deleted), in the caller's transaction. */
export async function retractEverywhere({
  tx,
  id,
  actor,
  now,
}: {
  tx: GraphWriter;
  id: string;
  actor: string;
  now: Date;
}): Promise<string[]> {
  const page = await tx.findNodes({
    label: LIVE_ITEM_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: id }],
    limit: 1000,
  });
  const envIds = page.nodes.map((node) => String(node.props.envId));
  for (const envId of envIds) {
    await applyLiveChanges(tx, {
      envId,
      targets: [{ itemId: id, version: null, hash: null }],
      cause: 'delete',
      actor,
      at: now,
    });
  }
  return envIds;
}
