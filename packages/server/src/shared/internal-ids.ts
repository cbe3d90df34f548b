/**
 * The ids of a site graph's own nodes. Items are `<type>:<slug>`, and a type name starts with a
 * letter (core `TypeName`), so every other node of the graph is `~<kind>:<key>`: no type name,
 * whatever it is, can make an item id equal one of them. (Item versions `<id>@<n>` and
 * tombstones `<id>@tombstone` derive from item ids and hold an `@`, which slugs never do.)
 *
 * What the API shows keeps its documented shape: the node of asset `asset:<id>` is
 * `~asset:<id>` (the media store maps between them), and audit entries name resources as
 * `<kind>:<key>` (`type:post`, `template:home`) as they always have. Environments, releases and
 * deployments keep the node ids the API shows (`env:<name>`, `release:<name>`, `deploy:<id>`),
 * which is why those names stay reserved type names (core `RESERVED_TYPE_NAMES`).
 */

/** What every internal node id starts with; no type name can (they start with a letter). */
export const INTERNAL_ID_PREFIX = '~';

/** The node id of an internal resource: `~<kind>:<key>`. */
export function internalNodeId(kind: string, key: string): string {
  return `${INTERNAL_ID_PREFIX}${kind}:${key}`;
}

/** How the API and the audit log name a resource whose node id is `nodeId`: `<kind>:<key>`. */
export function publicResourceId(nodeId: string): string {
  return nodeId.startsWith(INTERNAL_ID_PREFIX) ? nodeId.slice(INTERNAL_ID_PREFIX.length) : nodeId;
}

/** The node id of a resource the API names `<kind>:<key>` (see {@link publicResourceId}). */
export function internalNodeIdOf(resourceId: string): string {
  return `${INTERNAL_ID_PREFIX}${resourceId}`;
}
