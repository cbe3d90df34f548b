import type { ContentType, FieldDefinition, RelationshipKind } from '../schemas/content-type';

/**
 * A content type as the server stores it: a {@link ContentType} with the defaults filled in
 * (`relationships` `[]`, `routePattern` null, `emitPages` resolved from `listingOnly`).
 */
export type StoredContentType = ContentType & {
  relationships: NonNullable<ContentType['relationships']>;
  routePattern: string | null;
  emitPages: boolean;
};

/** The field types whose values are text, so `minLength`, `maxLength` and `regex` apply (`stringlist`: per entry for `regex`, entries for the lengths). */
export const TEXT_FIELD_TYPES: ReadonlySet<FieldDefinition['type']> = new Set([
  'string',
  'text',
  'markdown',
  'richtext',
  'stringlist',
]);

/**
 * Property names an item node uses for its own bookkeeping; no field may take them.
 * (Fields are stored as top-level node properties so that unique constraints, filters and
 * full-text search work on them directly.)
 */
export const RESERVED_FIELD_NAMES: readonly string[] = [
  'id',
  'type',
  'status',
  'publishedEnvs',
  'publishedVersions',
  'publishedAt',
  'version',
  'hash',
  'blockDocument',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'fields',
  'relationships',
];

/**
 * Node labels the server uses for its own nodes of a site graph; no content type may take them
 * as its nodeLabel (its item lists would hold those nodes).
 */
export const RESERVED_NODE_LABELS: readonly string[] = [
  'ContentType',
  'ItemVersion',
  'ItemTombstone',
  'Content',
  'Template',
  'TemplateVersion',
  'Transform',
  'Route',
  'View',
  'Script',
  'BlockType',
  'Widget',
  'PageKit',
  'SavedQuery',
  'Build',
  'MediaAsset',
  'Environment',
  'Release',
  'Deployment',
  'LiveItem',
  'LiveRevision',
  'LiveHead',
  'SiteDataVersion',
  'IdempotencyKey',
];

/**
 * Type names no content type may take (compared in lowercase). Item ids are `<type>:<slug>`;
 * the server's own nodes have ids no type name can produce (`~<kind>:<key>`, see the server's
 * `shared/internal-ids.ts`), so most names are free — `review`, `user`, `media`, `asset`,
 * `build`, `query`, `view`, `route`, `locale`, `widget` included. These stay reserved because
 * the API shows ids of that very shape for something else (docs/api-spec.md):
 * - `release`, `env`, `deploy`: releases (`release:<name>`), environments (`env:<name>`) and
 *   deployments (`deploy:<id>`) are nodes of the site graph under exactly those ids, and the
 *   release and deployment endpoints take them where an item id would read the same;
 * - `site`: sites are `site:<slug>` (the `X-Site-Id` header, `/api/sites/{id}`).
 */
export const RESERVED_TYPE_NAMES: readonly string[] = ['release', 'env', 'deploy', 'site'];

/** Whether a relationship holds at most one target per item. */
export function isSingleTarget(kind: RelationshipKind | undefined): boolean {
  return kind === 'one-to-one' || kind === 'many-to-one';
}
