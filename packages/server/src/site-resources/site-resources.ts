import { z } from 'zod';
import type { Permission } from '../auth/types';
import type { GraphReader } from '../engines/port';
import { internalNodeId, publicResourceId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';

/**
 * One of docs/api-spec.md §4's "other" site-scoped namespaces (transforms, routes, views, scripts, block
 * types, widgets, page kits): list, get, create, update and delete of JSON resources stored as
 * nodes `<Label>` with id `~<label>:<key>` in the site graph. Every write is audited.
 */
export interface SiteResourceSpec {
  /** The path segment under /api, e.g. `transforms`. */
  base: string;
  /** The node label, e.g. `Transform`. */
  label: string;
  /** The name of the key property and path parameter, e.g. `id`, `slug` or `name`. */
  key: string;
  item: z.ZodType;
  list: z.ZodType;
  create: z.ZodType;
  update: z.ZodType;
  params: z.ZodObject;
  /** Checks a merged resource after an update (e.g. a kind's required keys). */
  rules?: z.ZodType;
  /** Derives the key of a created resource when the body has none. */
  deriveKey?: (body: Record<string, unknown>) => string | undefined;
  /** Sorts the list (default: by key). */
  sortBy?: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
  readPermission?: Permission;
  writePermission: Permission;
  /** Update verbs to register (default PATCH and PUT, both partial). */
  updateMethods?: Array<'patch' | 'put'>;
  /**
   * Checks a resource about to be stored (created, or merged by an update) against the rest of
   * the site, in the write's transaction; throws a TrellisError to refuse it.
   */
  check?: (reader: GraphReader, resource: Record<string, unknown>) => Promise<void>;
}

/** The node id of a resource: `~<label in lowercase>:<key>` (shared/internal-ids). */
export function resourceNodeId(spec: Pick<SiteResourceSpec, 'label'>, key: string): string {
  return internalNodeId(spec.label.toLowerCase(), key);
}

/** How audit entries name a resource: `<label in lowercase>:<key>`. */
export function resourceAuditId(spec: Pick<SiteResourceSpec, 'label'>, key: string): string {
  return publicResourceId(resourceNodeId(spec, key));
}

/** Every resource of one namespace, read straight from the graph (used by the snapshot too). */
export async function listSiteResources(
  graph: GraphReader,
  spec: Pick<SiteResourceSpec, 'label' | 'key' | 'sortBy'>,
): Promise<Record<string, unknown>[]> {
  const out = (await allNodes(graph, { label: spec.label })).map((node) => node.props);
  const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    String(a[spec.key]).localeCompare(String(b[spec.key]));
  return out.sort(spec.sortBy ?? byKey);
}

/** A slug from a name: `Upper-case titles!` -> `upper-case-titles`. */
export function slugOf(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
  return slug || undefined;
}

export { z };
