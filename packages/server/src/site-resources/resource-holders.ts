import type { Holder, Workflow } from '@trelliscms/core';
import { CONTENT_LABEL, splitItemProps } from '../content/item-record';
import type { GraphReader } from '../engines/port';
import { nodePages } from '../shared/node-pages';
import { itemsInWorkflow } from '../workflows/item-workflow';
import { OTHER_RESOURCES, ROUTES, TRANSFORMS } from './resource-specs';
import { listSiteResources, type SiteResourceSpec } from './site-resources';

/**
 * What holds one resource of the "other" namespaces, by namespace:
 *
 * - a route or a view: the redirect routes that point at its path (or one of its pages); a
 *   cascade deletes those redirects with it;
 * - a script: the `script` transforms that run it; a cascade deletes those transforms;
 * - a block type: the items whose body has a block of it and the page kits whose blocks use
 *   it (no cascade: content is never rewritten by a delete);
 * - a workflow: the items a move left in one of its states other than the initial and the
 *   published ones (deleting it would drop them back to the initial state); no cascade;
 * - transforms, widgets and page kits: nothing names them.
 */
export async function findResourceHolders(
  reader: GraphReader,
  spec: SiteResourceSpec,
  resource: Record<string, unknown>,
): Promise<Holder[]> {
  const key = String(resource[spec.key]);
  switch (spec.base) {
    case 'routes':
    case 'views':
      return redirectsTo(reader, String(resource.path ?? ''), spec.base === 'routes' ? key : null);
    case 'scripts':
      return (await listSiteResources(reader, TRANSFORMS))
        .filter((transform) => transform.kind === 'script' && transform.script === key)
        .map((transform) => ({
          kind: 'transform',
          id: String(transform.id),
          detail: `runs script ${key}`,
          cascades: true,
        }));
    case 'block-types':
      return blockTypeUses(reader, key);
    case 'workflows':
      return (await itemsInWorkflow(reader, resource as Workflow)).map(({ itemId, state }) => ({
        kind: 'item',
        id: itemId,
        detail: `in state ${state}`,
        cascades: false,
      }));
    default:
      return [];
  }
}

/** What `?cascade=1` does to a resource of the namespace, given its cascading holders; undefined: no cascade. */
export function cascadeOf(spec: SiteResourceSpec, count: number): string | undefined {
  if (spec.base === 'routes' || spec.base === 'views') return `delete the ${count} redirect route(s) with it`;
  if (spec.base === 'scripts') return `delete the ${count} transform(s) that run it with it`;
  return undefined;
}

/** The namespace of a cascading holder's kind (`route`, `transform`). */
export function specOfHolder(kind: string): SiteResourceSpec {
  return kind === 'route' ? ROUTES : TRANSFORMS;
}

/** A site path without its query, fragment and trailing slash (`/` stays `/`). */
function normalPath(path: string): string {
  const bare = path.split(/[?#]/)[0] ?? '';
  return bare.length > 1 ? bare.replace(/\/+$/, '') : bare;
}

/** The redirect routes (other than `self`) whose target is `path` or one of its pages `<path>page/<n>/`. */
async function redirectsTo(reader: GraphReader, path: string, self: string | null): Promise<Holder[]> {
  const target = normalPath(path);
  if (!target.startsWith('/')) return [];
  const pages = `${target === '/' ? '' : target}/page/`;
  return (await listSiteResources(reader, ROUTES))
    .filter((route) => {
      if (route.kind !== 'redirect' || route.slug === self || typeof route.redirectTo !== 'string')
        return false;
      const to = normalPath(route.redirectTo);
      return to === target || `${to}/`.startsWith(pages);
    })
    .map((route) => ({
      kind: 'route',
      id: String(route.slug),
      detail: `redirects ${String(route.path)} to ${String(route.redirectTo)}`,
      cascades: true,
    }));
}

/** The items whose body uses a block of type `name`, and the page kits whose blocks do. */
async function blockTypeUses(reader: GraphReader, name: string): Promise<Holder[]> {
  const holders: Holder[] = [];
  for await (const page of nodePages(reader, { label: CONTENT_LABEL })) {
    for (const node of page) {
      const count = splitItemProps(node.props).meta.body.blocks.filter((block) => block.type === name).length;
      if (count > 0) {
        holders.push({
          kind: 'item',
          id: node.id,
          detail: `${count} ${name} block(s) in its body`,
          cascades: false,
        });
      }
    }
  }
  const kits = OTHER_RESOURCES.find((spec) => spec.base === 'page-kits')!;
  for (const kit of await listSiteResources(reader, kits)) {
    const blocks = Array.isArray(kit.blocks) ? (kit.blocks as Array<{ type?: unknown }>) : [];
    if (blocks.some((block) => block.type === name)) {
      holders.push({ kind: 'page-kit', id: String(kit.id), detail: `has a ${name} block`, cascades: false });
    }
  }
  return holders;
}
