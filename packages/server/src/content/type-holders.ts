import type { Holder, StoredContentType } from '@trelliscms/core';
import type { GraphReader } from '../engines/port';
import { LIVE_ITEM_LABEL } from '../releases/live-state';
import { allNodes } from '../shared/node-pages';
import { OTHER_RESOURCES, ROUTES, TRANSFORMS, VIEWS } from '../site-resources/resource-specs';
import { listSiteResources } from '../site-resources/site-resources';
import { listTemplates } from '../site-resources/template-repository';
import { listWorkflows } from '../workflows/workflow-definitions';
import { listTypes } from './type-repository';

const SCRIPTS = OTHER_RESOURCES.find((spec) => spec.base === 'scripts')!;
const BLOCK_TYPES = OTHER_RESOURCES.find((spec) => spec.base === 'block-types')!;

/**
 * What holds content type `type` (docs: server README "Deleting"): its items and the items of
 * it live in an environment (a cascade deletes them), and the definitions that name it, which
 * a cascade leaves alone: other types whose relationships or reference fields target it,
 * templates bound to it, routes and views that list it, page routes that show one of its
 * items, transforms and scripts that run on its items, block types allowed in it, workflows
 * that name it.
 */
export async function findTypeHolders(reader: GraphReader, type: StoredContentType): Promise<Holder[]> {
  const name = type.name;
  const holders: Holder[] = [];
  const itemIds = new Set((await allNodes(reader, { label: type.nodeLabel })).map((node) => node.id));
  for (const id of itemIds) holders.push({ kind: 'item', id, cascades: true });
  const live = await allNodes(reader, {
    label: LIVE_ITEM_LABEL,
    where: [{ prop: 'type', op: 'eq', value: name }],
  });
  for (const node of live) {
    const id = String(node.props.itemId);
    if (itemIds.has(id)) continue;
    holders.push({
      kind: 'item',
      id,
      detail: `deleted, but live in ${String(node.props.envId)}`,
      cascades: true,
    });
  }
  for (const other of await listTypes(reader)) {
    if (other.name === name) continue;
    for (const relationship of other.relationships) {
      if (relationship.target !== name) continue;
      holders.push({
        kind: 'type',
        id: other.name,
        detail: `its relationship \`${relationship.name}\` targets ${name}`,
        cascades: false,
      });
    }
    for (const field of other.fields) {
      if (field.type !== 'reference' || field.target !== name) continue;
      holders.push({
        kind: 'type',
        id: other.name,
        detail: `its field \`${field.name}\` references ${name} items`,
        cascades: false,
      });
    }
  }
  for (const template of await listTemplates(reader)) {
    if (template.boundType === name) {
      holders.push({ kind: 'template', id: template.name, detail: `bound to ${name}`, cascades: false });
    }
  }
  for (const [spec, kind] of [
    [ROUTES, 'route'],
    [VIEWS, 'view'],
  ] as const) {
    for (const resource of await listSiteResources(reader, spec)) {
      const id = String(resource[spec.key]);
      const paginate = resource.paginate as { type?: string } | undefined;
      if (paginate?.type === name) holders.push({ kind, id, detail: `lists ${name} items`, cascades: false });
      const contentId = resource.contentId;
      if (typeof contentId === 'string' && contentId.startsWith(`${name}:`)) {
        holders.push({ kind, id, detail: `shows ${contentId}`, cascades: false });
      }
    }
  }
  for (const [spec, kind] of [
    [TRANSFORMS, 'transform'],
    [SCRIPTS, 'script'],
  ] as const) {
    for (const resource of await listSiteResources(reader, spec)) {
      if (resource.type === name) {
        holders.push({
          kind,
          id: String(resource[spec.key]),
          detail: `runs on ${name} items`,
          cascades: false,
        });
      }
    }
  }
  for (const blockType of await listSiteResources(reader, BLOCK_TYPES)) {
    if (Array.isArray(blockType.allowedIn) && blockType.allowedIn.includes(name)) {
      holders.push({
        kind: 'block-type',
        id: String(blockType.name),
        detail: `allowed in ${name} bodies`,
        cascades: false,
      });
    }
  }
  for (const workflow of await listWorkflows(reader)) {
    if (workflow.types?.includes(name)) {
      holders.push({
        kind: 'workflow',
        id: workflow.name,
        detail: `${name} items follow it`,
        cascades: false,
      });
    }
  }
  return holders;
}
