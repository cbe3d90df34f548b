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

/** Node labels the content store uses itself; no content type may take them as its nodeLabel. */
export const RESERVED_NODE_LABELS: readonly string[] = [
  'ContentType',
  'ItemVersion',
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
  'Build',
  'IdempotencyKey',
];

/**
 * Type names no content type may take: item ids are `<type>:<slug>`, and these prefixes name
 * other nodes of a site graph (content type definitions, releases, environments, …).
 */
export const RESERVED_TYPE_NAMES: readonly string[] = [
  'type',
  'template',
  'release',
  'env',
  'deploy',
  'asset',
  'build',
  'query',
  'route',
  'view',
  'script',
  'widget',
  'blocktype',
  'workflow',
  'locale',
  'transform',
  'pagekit',
  'site',
  'user',
  'key',
  'audit',
  'review',
  'media',
];

/** Whether a relationship holds at most one target per item. */
export function isSingleTarget(kind: RelationshipKind | undefined): boolean {
  return kind === 'one-to-one' || kind === 'many-to-one';
}
