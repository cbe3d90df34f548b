import type { BlockDocument, ContentRecord, StoredContentType } from '@trelliscms/core';
import { isSingleTarget } from '@trelliscms/core';
import type { GraphEdge, GraphNode, Props } from '../engines/port';
import { keyJson } from './item-hash';

/** The second label every item node carries beside its type's nodeLabel. */
export const CONTENT_LABEL = 'Content';

/** The workflow status of a new item. */
export const DRAFT = 'draft';
/** The status POST /content/{type}/{id}/publish sets. */
export const PUBLISHED = 'published';

/**
 * The bookkeeping properties of an item node; every other property is a field. (Fields are
 * top-level properties so unique constraints, filters and full-text search apply to them.)
 *
 * - `status`: `draft` until published, then `published` (edits keep it).
 * - `publishedEnvs`: the environment names the item was published to (default `prod`);
 *   the build's prod rule reads it. `publishedVersions` maps each of them to the item
 *   version published there.
 * - `version`: 1 on create, +1 on every write; `hash`: contentHash of `{fields, body}`.
 * - `body`: the block document, stored as `blockDocument`.
 */
export interface ItemMeta {
  status: string;
  publishedEnvs: string[];
  publishedVersions: Record<string, number>;
  publishedAt: string | null;
  version: number;
  hash: string;
  body: BlockDocument;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
}

/** The node property the block document is stored under (`body` is a likely field name). */
const BODY_PROP = 'blockDocument';

const META_KEYS: ReadonlySet<string> = new Set<string>([
  'status',
  'publishedEnvs',
  'publishedVersions',
  'publishedAt',
  'version',
  'hash',
  BODY_PROP,
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
]);

/** The format version of the block documents items carry. */
export const BLOCK_DOCUMENT_VERSION = '1';

/** An empty block document. */
export function emptyBody(time = Date.now()): BlockDocument {
  return { time, blocks: [], version: BLOCK_DOCUMENT_VERSION };
}

/** Splits an item node's properties into its fields and its bookkeeping. */
export function splitItemProps(props: Props): { fields: Record<string, unknown>; meta: ItemMeta } {
  const fields: Record<string, unknown> = {};
  const meta: Record<string, unknown> = {};
  for (const key in props) {
    if (META_KEYS.has(key)) meta[key] = props[key];
    else fields[key] = props[key];
  }
  return {
    fields,
    meta: {
      status: typeof meta.status === 'string' ? meta.status : DRAFT,
      publishedEnvs: Array.isArray(meta.publishedEnvs) ? (meta.publishedEnvs as string[]) : [],
      publishedVersions: (meta.publishedVersions as Record<string, number> | undefined) ?? {},
      publishedAt: typeof meta.publishedAt === 'string' ? meta.publishedAt : null,
      version: typeof meta.version === 'number' ? meta.version : 1,
      hash: typeof meta.hash === 'string' ? meta.hash : '',
      body: (meta[BODY_PROP] as BlockDocument | undefined) ?? emptyBody(0),
      createdAt: String(meta.createdAt ?? ''),
      updatedAt: String(meta.updatedAt ?? meta.createdAt ?? ''),
      createdBy: String(meta.createdBy ?? ''),
      updatedBy: String(meta.updatedBy ?? ''),
    },
  };
}

/**
 * `JSON.stringify(itemProps(fields, meta))` from the JSON of the fields' members (item-hash.ts
 * `fieldPieces`), so their values are not serialized again; null when a member of `meta` has
 * the name of a field (itemProps then overwrites the field where it stands).
 */
export function itemPropsJson(
  fields: Record<string, unknown>,
  pieces: ReadonlyArray<readonly [string, string]>,
  meta: ItemMeta,
): string | null {
  const named: Props = {};
  for (const key in meta) {
    const name = key === 'body' ? BODY_PROP : key;
    if (Object.hasOwn(fields, name)) return null;
    named[name] = meta[key as keyof ItemMeta];
  }
  let out = '{';
  for (const [key, json] of pieces) out += `${out === '{' ? '' : ','}${keyJson(key)}:${json}`;
  const rest = JSON.stringify(named);
  if (rest === '{}') return `${out}}`;
  return out === '{' ? rest : `${out},${rest.slice(1)}`;
}

/** Stands for the hash while the shared members of new items' props are written (newItemsJson). */
const HASH_MARK = 'hash-written-per-item';

/**
 * `JSON.stringify(itemProps(fields, meta))` for new items that share every bookkeeping member
 * of `meta` but the hash (the new items of one import batch): those members are serialized
 * once, and each item's JSON is its fields' JSON (`JSON.stringify(fields)`, or the same text
 * joined from pieces) with its hash and them appended. Null when `fieldNames` (the names the
 * fields may have) include a bookkeeping name: itemProps then overwrites the field where it
 * stands.
 */
export function newItemsJson(
  meta: ItemMeta,
  fieldNames: readonly string[],
): ((fieldsJson: string, hash: string) => string) | null {
  for (const name of fieldNames) if (META_KEYS.has(name)) return null;
  const shared = JSON.stringify(itemProps({}, { ...meta, hash: HASH_MARK }));
  const at = shared.indexOf(`"hash":"${HASH_MARK}"`);
  const head = shared.slice(1, at + '"hash":"'.length);
  const tail = shared.slice(at + '"hash":"'.length + HASH_MARK.length);
  // A hash is `sha256:<hex>`: nothing in it needs escaping.
  return (fieldsJson, hash) =>
    fieldsJson === '{}' ? `{${head}${hash}${tail}` : `${fieldsJson.slice(0, -1)},${head}${hash}${tail}`;
}

/** `JSON.stringify(fields)` from the JSON of its members in key order (item-hash.ts `fieldPieces`). */
export function piecesJson(pieces: ReadonlyArray<readonly [string, string]>): string {
  let out = '{';
  for (const [key, json] of pieces) out += `${out === '{' ? '' : ','}${keyJson(key)}:${json}`;
  return `${out}}`;
}

/** The properties of an item node. */
export function itemProps(fields: Record<string, unknown>, meta: ItemMeta): Props {
  const props: Props = {};
  for (const key in fields) props[key] = fields[key];
  for (const key in meta) props[key === 'body' ? BODY_PROP : key] = meta[key as keyof ItemMeta];
  return props;
}

/** The type name of an item id `<type>:<slug>`. */
export function typeOfId(id: string): string {
  return id.slice(0, id.indexOf(':'));
}

/**
 * Groups an item's outgoing edges by the type's relationships (an edge belongs to a
 * relationship when its label and its target's type match); single-target kinds read as
 * one id, others as an array. Edges that match no relationship are left out.
 */
export function relationshipsOf(type: StoredContentType, edges: GraphEdge[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const relationship of type.relationships) {
    const targets = edges
      .filter((edge) => edge.type === relationship.edgeLabel && typeOfId(edge.to) === relationship.target)
      .map((edge) => edge.to)
      .sort();
    if (isSingleTarget(relationship.kind)) {
      if (targets.length > 0) out[relationship.name] = targets[0];
    } else if (targets.length > 0) out[relationship.name] = targets;
  }
  return out;
}

/** An item node as the API shows it (docs/api-spec.md §2 ContentRecord). */
export function toContentRecord(node: GraphNode, relationships?: Record<string, unknown>): ContentRecord {
  const { fields, meta } = splitItemProps(node.props);
  const record: ContentRecord & { publishedEnvs: string[]; publishedAt: string | null } = {
    id: node.id,
    type: typeOfId(node.id),
    fields,
    status: meta.status,
    publishedEnvs: meta.publishedEnvs,
    publishedAt: meta.publishedAt,
    version: meta.version,
    hash: meta.hash,
    body: meta.body,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
  };
  if (relationships !== undefined) record.relationships = relationships;
  return record;
}
