import { createHash, hash } from 'node:crypto';
import { itemSlug } from '@trelliscms/core/build';
import type { SnapshotItem, SnapshotType } from '../snapshot/types';
import { type IndexDoc, miniSearchIndexJson } from './shard-index-json';

/** One searchable page. */
export interface SearchDoc {
  id: string;
  url: string;
  title: string;
  type: string;
  text: string;
}

/** Files of the search index, by path relative to the site root. */
export interface SearchFiles {
  /** shard number → its index JSON and the hash of the documents it was built from */
  shards: Array<{ file: string; content: string; docsHash: string }>;
  manifest: { file: string; content: string };
  vectors: Array<{ file: string; content: string }>;
}

const textTypes = new Set(['string', 'text', 'markdown', 'richtext', 'enum', 'stringlist']);
const MAX_TEXT = 300;
/**
 * Documents per shard (at least; at most 64 shards): each shard is an independent MiniSearch
 * index, so one edit rebuilds one small shard. `search.js` queries every shard.
 */
export const DOCS_PER_SHARD = 250;
const MAX_SHARDS = 64;

/** Characters the search text turns into a space (a run of them and of spaces gives one space). */
const SEPARATORS = new Uint8Array(128);
for (const c of '#*_`>[]()!|~-') SEPARATORS[c.charCodeAt(0)] = 1;
// what `\s` matches below U+0080
for (const code of [9, 10, 11, 12, 13, 32]) SEPARATORS[code] = 1;

/** Whether a UTF-16 code unit is a separator: one of {@link SEPARATORS}, or what `\s` matches above U+007F. */
function isSeparator(code: number): boolean {
  if (code < 128) return SEPARATORS[code] === 1;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The search text of a string, in one pass: what
 * `value.replace(/<[^>]*>/g, ' ').replace(/[#*_\`>[\]()!|~-]+/g, ' ').replace(/\s+/g, ' ').trim()`
 * gives (a tag — `<` up to the next `>` — and every run of separators and spaces become one
 * space; a `<` with no `>` after it stays), or its first characters: it stops once it has made
 * `limit` characters or more (a prefix of the whole text, ending at a separator).
 */
export function plainPrefix(value: string, limit = Number.POSITIVE_INFINITY): string {
  let out = '';
  // the kept run in progress (-1: none), and where the next `>` is (-2: not looked for, -1: none)
  let start = -1;
  let close = -2;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    let skip = i;
    if (code === 60) {
      if (close !== -1 && close < i) close = value.indexOf('>', i + 1);
      if (close === -1) {
        if (start === -1) start = i;
        continue;
      }
      // a tag: `<` up to the next `>`
      skip = close;
    } else if (!isSeparator(code)) {
      if (start === -1) start = i;
      continue;
    }
    if (start !== -1) {
      out = out === '' ? value.slice(start, i) : `${out} ${value.slice(start, i)}`;
      start = -1;
      if (out.length >= limit) return out;
    }
    i = skip;
  }
  if (start !== -1) out = out === '' ? value.slice(start) : `${out} ${value.slice(start)}`;
  return out;
}

function plain(value: unknown): string {
  if (Array.isArray(value)) return value.map(plain).join(' ');
  if (typeof value !== 'string') return '';
  return plainPrefix(value);
}

/**
 * `plain(value)`, or when `value` is a long text, the first characters of it, enough to give the
 * same document: longer than {@link MAX_TEXT} (the document keeps no more) and than `title`
 * (so it differs from the title as the whole text would).
 */
function plainText(value: unknown, title: string): string {
  if (typeof value === 'string') return plainPrefix(value, Math.max(MAX_TEXT, title.length) + 1);
  return plain(value);
}

const docCache = new WeakMap<
  SnapshotItem,
  { url: string; fields: unknown; type: unknown; doc: SearchDoc; hash: string }
>();

/** The search document of an item with a page: title, and the text of its text-like fields (memoized per item object). */
export function searchDoc(item: SnapshotItem, type: SnapshotType | undefined, url: string): SearchDoc {
  return cachedDoc(item, type, url).doc;
}

function cachedDoc(
  item: SnapshotItem,
  type: SnapshotType | undefined,
  url: string,
  memo = true,
): { doc: SearchDoc; hash: string } {
  const cached = memo ? docCache.get(item) : undefined;
  // a replaced `fields` (or type definition) is noticed; fields changed in place are not
  if (cached && cached.url === url && cached.fields === item.fields && cached.type === type) return cached;
  const fields = item.fields;
  const titleValue = ['title', 'name', 'label', type?.keyField ?? '']
    .map((k) => fields[k])
    .find((v) => typeof v === 'string' && v);
  const title = typeof titleValue === 'string' ? titleValue : itemSlug(item);
  const parts: string[] = [];
  for (const def of type?.fields ?? []) {
    if (!textTypes.has(def.type)) continue;
    const text = plainText(fields[def.name], title);
    if (text && text !== title) parts.push(text);
  }
  const doc = { id: item.id, url, title, type: item.type, text: parts.join(' ').slice(0, MAX_TEXT) };
  const entry = {
    url,
    fields,
    type,
    doc,
    // one call (no Hash object per document): the same digest
    hash: hash('sha1', JSON.stringify(doc), 'base64url'),
  };
  if (memo) docCache.set(item, entry);
  return entry;
}

/**
 * The search document and its hash, memoized per item object unless `memo` is false (a one-shot
 * build without a cache: the memo would hold every item's document as long as the items live).
 */
export function searchDocWithHash(
  item: SnapshotItem,
  type: SnapshotType | undefined,
  url: string,
  memo = true,
): { doc: SearchDoc; hash: string } {
  return cachedDoc(item, type, url, memo);
}

/** The shard a document belongs to (FNV-1a of its id). */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/** MiniSearch options shared by the build and `search.js`. */
export const miniSearchOptions = {
  fields: ['title', 'text'],
  storeFields: ['title', 'url', 'type'],
  idField: 'id',
};

/** How many shards `docs` documents are split into. */
export function searchShardCount(docs: number): number {
  return Math.max(1, Math.min(MAX_SHARDS, Math.ceil(docs / DOCS_PER_SHARD)));
}

/** One shard: its documents sorted by id, and the hash of their hashes. */
export function searchShard(
  shard: number,
  entries: ReadonlyArray<{ doc: SearchDoc; hash: string }>,
): { shard: number; docs: SearchDoc[]; docsHash: string } {
  const sorted = [...entries].sort((a, b) => (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0));
  const hash = createHash('sha256');
  for (const entry of sorted) hash.update(entry.hash);
  return { shard, docs: sorted.map((entry) => entry.doc), docsHash: hash.digest('base64url') };
}

/**
 * Groups documents into shards and hashes each shard's documents; `build` turns one shard into
 * its MiniSearch index JSON. Deterministic: the same documents give the same bytes.
 */
export function planSearchShards(
  docs: ReadonlyArray<{ doc: SearchDoc; hash: string }>,
): Array<{ shard: number; docs: SearchDoc[]; docsHash: string }> {
  const count = searchShardCount(docs.length);
  const groups: Array<Array<{ doc: SearchDoc; hash: string }>> = Array.from({ length: count }, () => []);
  for (const entry of docs) groups[shardOf(entry.doc.id, count)]!.push(entry);
  return groups.map((group, shard) => searchShard(shard, group));
}

/** Documents added between two calls of `progress` in {@link buildShardIndex}. */
const PROGRESS_SLICE = 500;

/**
 * The MiniSearch index JSON of one shard: what `JSON.stringify` of a
 * `new MiniSearch(miniSearchOptions)` gives after `add` of each document in order, made by
 * {@link miniSearchIndexJson} (the same string, at a fraction of the CPU); `progress`, when
 * given, is called after each slice of documents added and once the JSON is made.
 */
export function buildShardIndex(docs: readonly SearchDoc[], progress?: () => void): string {
  return miniSearchIndexJson(
    miniSearchOptions,
    docs as unknown as readonly IndexDoc[],
    progress && { slice: PROGRESS_SLICE, call: progress },
  );
}

/**
 * `search/manifest.json`: how many shards there are and how to load them; `base`, the public
 * URL's path that the documents' `url`s start with (`''` at a domain's root), so `search.js`
 * can resolve them against wherever the site is served; with vectors, the vector files (one per
 * shard) and how the embeddings were made (`embedding`: the provider and dimension, when the
 * snapshot says), so `search.js` can embed a query the same way.
 */
export function searchManifest(params: {
  shards: number;
  vectors: boolean;
  embedding?: { provider: string; dimensions: number } | null;
  base?: string;
}): string {
  return `${JSON.stringify({
    format: 'trellis-search',
    version: 1,
    engine: 'minisearch',
    base: params.base ?? '',
    options: miniSearchOptions,
    shards: Array.from({ length: params.shards }, (_, i) => `index-${i}.json`),
    vectors: params.vectors ? Array.from({ length: params.shards }, (_, i) => `vectors-${i}.json`) : [],
    ...(params.vectors ? { embedding: params.embedding ?? null } : {}),
  })}\n`;
}

/** Decimal places of the vectors a search index ships (enough to rank; a fraction of the bytes). */
const VECTOR_DECIMALS = 1e5;

/**
 * `search/vectors-<n>.json`: `{"<document id>": [numbers], ...}`, the embedding of each
 * document of a shard that has one, rounded to 5 decimals, in the shard's document order.
 */
export function searchVectors(
  entries: ReadonlyArray<readonly [string, readonly number[] | null | undefined]>,
): string {
  const vectors: Record<string, number[]> = {};
  for (const [id, embedding] of entries) {
    if (embedding && embedding.length > 0)
      vectors[id] = embedding.map((value) => Math.round(value * VECTOR_DECIMALS) / VECTOR_DECIMALS);
  }
  return JSON.stringify(vectors);
}
