import type { BlockDocument, ContentRecord, StoredContentType } from '@trelliscms/core';
import { isSingleTarget } from '@trelliscms/core';
import type { GraphNode, Props } from '../engines/port';
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
      updatedBy: String(meta.updatedBy ?? meta.createdBy ?? ''),
    },
  };
}

/**
 * Whether the bookkeeping member `key` of `meta` is left out of the stored props: it holds
 * what the readers ({@link splitItemProps}, {@link contentRecordJsonFromText}) make of a
 * missing member — no environments, no published versions, never published, version 1, last
 * written by its creator. A new item then stores about 100 bytes less, which a bulk import
 * writes (and commits) for every record. Status and the dates stay: list filters and sorts on
 * them run on the stored members.
 */
function isLeftOut(key: keyof ItemMeta, meta: ItemMeta): boolean {
  switch (key) {
    case 'publishedEnvs':
      return meta.publishedEnvs.length === 0;
    case 'publishedVersions':
      for (const _ in meta.publishedVersions) return false;
      return true;
    case 'publishedAt':
      return meta.publishedAt === null;
    case 'version':
      return meta.version === 1;
    case 'updatedBy':
      return meta.updatedBy === meta.createdBy;
    default:
      return false;
  }
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
    if (!isLeftOut(key as keyof ItemMeta, meta)) named[name] = meta[key as keyof ItemMeta];
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

/** The properties of an item node: its fields, then its bookkeeping but the members left out (see isLeftOut). */
export function itemProps(fields: Record<string, unknown>, meta: ItemMeta): Props {
  const props: Props = {};
  for (const key in fields) props[key] = fields[key];
  for (const key in meta) {
    const name = key === 'body' ? BODY_PROP : key;
    if (!isLeftOut(key as keyof ItemMeta, meta)) props[name] = meta[key as keyof ItemMeta];
    // (a field of that name, which RESERVED_FIELD_NAMES forbids, would read as the member)
    else if (Object.hasOwn(props, name)) delete props[name];
  }
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
export function relationshipsOf(
  type: StoredContentType,
  edges: ReadonlyArray<{ type: string; to: string }>,
): Record<string, unknown> {
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

/** `JSON.stringify(emptyBody(0))`: the body of an item stored without one. */
const EMPTY_BODY_JSON = JSON.stringify(emptyBody(0));

/**
 * The end (exclusive) of the JSON string whose opening quote is at `start` in `text`, or -1.
 * A quote preceded by an odd number of backslashes is escaped.
 */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let back = quote - 1;
    while (text.charCodeAt(back) === 92) back -= 1;
    if ((quote - 1 - back) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * The end (exclusive) of the JSON value that starts at `start` in text `JSON.stringify` wrote
 * (no white space), or -1 when the text ends first.
 */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 34) return stringEnd(text, start);
  if (first === 123 || first === 91) {
    let depth = 0;
    let at = start;
    for (;;) {
      const c = text.charCodeAt(at);
      if (c === 34) {
        at = stringEnd(text, at);
        if (at < 0) return -1;
        continue;
      }
      if (c === 123 || c === 91) depth += 1;
      else if (c === 125 || c === 93) {
        depth -= 1;
        if (depth === 0) return at + 1;
      } else if (Number.isNaN(c)) return -1;
      at += 1;
    }
  }
  // A number, true, false or null: up to the next `,`, `}` or `]`.
  let at = start;
  for (;;) {
    const c = text.charCodeAt(at);
    if (c === 44 || c === 125 || c === 93 || Number.isNaN(c)) return at;
    at += 1;
  }
}

/** Whether a JSON value's text (as `JSON.stringify` writes it) is a number. */
function isNumberText(value: string): boolean {
  const c = value.charCodeAt(0);
  return c === 45 || (c >= 48 && c <= 57);
}

/**
 * {@link contentRecordJson} from the props' text without parsing it: the top-level members are
 * found by their boundaries and copied. Null when the text has something this does not
 * reproduce exactly (a key with an escape or `__proto__`, a date that is not a string), or
 * is not an object as `JSON.stringify` writes one: the caller parses then.
 */
export function contentRecordJsonFromText(
  id: string,
  propsJson: string,
  relationships: Record<string, unknown> | undefined,
): { json: string; version: number } | null {
  const text = propsJson;
  if (text.charCodeAt(0) !== 123) return null;
  // The fields' members: one slice of the text while they stand together (the server writes
  // fields first, then bookkeeping), else joined one by one.
  let fieldsFrom = -1;
  let fieldsTo = -1;
  let fields: string | null = null;
  let status = '"draft"';
  let publishedEnvs = '[]';
  let publishedAt = 'null';
  let version = '1';
  let hash = '""';
  let body = EMPTY_BODY_JSON;
  let createdAt: string | undefined;
  let updatedAt: string | undefined;
  let at = 1;
  if (text.charCodeAt(1) === 125) {
    if (text.length !== 2) return null;
  } else {
    for (;;) {
      if (text.charCodeAt(at) !== 34) return null;
      const keyEnd = text.indexOf('"', at + 1);
      if (keyEnd < 0 || text.charCodeAt(keyEnd + 1) !== 58) return null;
      const key = text.slice(at + 1, keyEnd);
      // An escaped key (or one JSON.parse would not keep as an own field): parse instead.
      if (key.includes('\\') || key === '__proto__') return null;
      const start = keyEnd + 2;
      const end = valueEnd(text, start);
      if (end < 0) return null;
      // What splitItemProps and toContentRecord make of each bookkeeping member.
      switch (key) {
        case 'status':
          if (text.charCodeAt(start) === 34) status = text.slice(start, end);
          break;
        case 'publishedEnvs':
          if (text.charCodeAt(start) === 91) publishedEnvs = text.slice(start, end);
          break;
        case 'publishedAt':
          if (text.charCodeAt(start) === 34) publishedAt = text.slice(start, end);
          break;
        case 'version': {
          const value = text.slice(start, end);
          if (isNumberText(value)) version = value;
          break;
        }
        case 'hash':
          if (text.charCodeAt(start) === 34) hash = text.slice(start, end);
          break;
        case BODY_PROP: {
          const value = text.slice(start, end);
          if (value !== 'null') body = value;
          break;
        }
        case 'createdAt':
        case 'updatedAt': {
          const value = text.slice(start, end);
          let date: string | undefined;
          if (value.charCodeAt(0) === 34) date = value;
          else if (value !== 'null') return null; // String(value) of a non-string: parse instead.
          if (key === 'createdAt') createdAt = date;
          else updatedAt = date;
          break;
        }
        case 'createdBy':
        case 'updatedBy':
          // Not shown, but String() of a non-string may throw (an object whose toString is not
          // a function): parse instead, so the answer (or the error) is the same.
          if (text.charCodeAt(start) !== 34 && text.slice(start, end) !== 'null') return null;
          break;
        case 'publishedVersions':
          break;
        default:
          if (fieldsFrom < 0) fieldsFrom = at;
          else if (fields === null && at !== fieldsTo + 1)
            fields = `${text.slice(fieldsFrom, fieldsTo)},${text.slice(at, end)}`;
          else if (fields !== null) fields += `,${text.slice(at, end)}`;
          fieldsTo = end;
      }
      at = end;
      const next = text.charCodeAt(at);
      if (next === 44) {
        at += 1;
        continue;
      }
      if (next === 125 && at === text.length - 1) break;
      return null;
    }
  }
  if (fields === null) fields = fieldsFrom < 0 ? '' : text.slice(fieldsFrom, fieldsTo);
  let json = `{"id":${JSON.stringify(id)},"type":${JSON.stringify(typeOfId(id))},"fields":{${fields}},"status":${status},"publishedEnvs":${publishedEnvs},"publishedAt":${publishedAt},"version":${version},"hash":${hash},"body":${body},"createdAt":${createdAt ?? '""'},"updatedAt":${updatedAt ?? createdAt ?? '""'}`;
  json += relationships === undefined ? '}' : `,"relationships":${JSON.stringify(relationships)}}`;
  return { json, version: Number(version) };
}

/**
 * `JSON.stringify(toContentRecord(node, relationships))` and the record's version, for the
 * item `id` whose props are `propsJson` (their JSON text as stored: `JSON.stringify` of them),
 * without parsing the props when their text allows it: byte for byte the same text.
 */
export function contentRecordJson(
  id: string,
  propsJson: string,
  relationships?: Record<string, unknown>,
): { json: string; version: number } {
  const fast = contentRecordJsonFromText(id, propsJson, relationships);
  if (fast !== null) return fast;
  const record = toContentRecord({ id, labels: [], props: JSON.parse(propsJson) as Props }, relationships);
  return { json: JSON.stringify(record), version: record.version ?? 1 };
}
