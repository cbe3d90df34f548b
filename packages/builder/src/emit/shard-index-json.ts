/**
 * A search shard's MiniSearch index JSON, made without MiniSearch: the same string as
 * `JSON.stringify(index)` of a `new MiniSearch(miniSearchOptions)` (minisearch 7.2, its
 * serialization version 2) after `add` of the same documents in the same order, which
 * `search.js` loads with `MiniSearch.loadJSON`.
 *
 * Why: MiniSearch's `add` walks its radix tree (`createPath`: an iterator over each node's keys,
 * one-character strings compared) for every word of every document, and its `toJSON` copies the
 * whole index into Maps' `Object.fromEntries` before `JSON.stringify` walks it again; on a
 * 10,000-item build that was the build thread's largest part (docs/benchmarks.md, tenth and
 * eleventh rounds). Here the tree is walked once per distinct word (a word seen before finds
 * its entry in a Map by its text), and the JSON is written in one pass.
 *
 * What makes the bytes the same (each is what MiniSearch 7.2's source does):
 * - words: `text.split(/[\n\r\p{Z}\p{P}]+/u)`, each lowercased, empty ones skipped; a field's
 *   length is the number of distinct words before lowercasing, empty ones included; its average
 *   is updated document by document as `(average * count + length) / (count + 1)`;
 * - the index's order is the radix tree's: each node a `Map` from the edge's text (`''` for the
 *   word ending there) to the child, built by the same `createPath` (a split puts the shared
 *   prefix as a new key at the end of the parent and the rest under it), and iterated from each
 *   node's last key to its first (MiniSearch's `TreeIterator`);
 * - the objects keyed by short document ids and field ids have integer keys, which
 *   `JSON.stringify` writes in ascending order whatever the insertion order.
 * A test builds random shards both ways and compares the strings (`shard-index-json.test.ts`).
 */

/** MiniSearch's default tokenizer's separators (`SPACE_OR_PUNCTUATION` in its source). */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

/** Which characters below U+0080 are such separators (1), for texts of ASCII only. */
const ASCII_SEPARATOR = new Uint8Array(128);
for (let code = 0; code < 128; code++)
  if (/[\n\r\p{Z}\p{P}]/u.test(String.fromCharCode(code))) ASCII_SEPARATOR[code] = 1;
const NON_ASCII = /[^\0-\x7f]/;

/**
 * `text.split(SPACE_OR_PUNCTUATION)`: the pieces between runs of separators (an empty one
 * before a leading run and after a trailing one; `['']` for `''`). A text of ASCII only is
 * scanned by a table of its characters; any other goes through the regular expression.
 */
export function tokenize(text: string): string[] {
  if (NON_ASCII.test(text)) return text.split(SPACE_OR_PUNCTUATION);
  const tokens: string[] = [];
  const n = text.length;
  let start = 0;
  for (let i = 0; i < n; i++) {
    if (ASCII_SEPARATOR[text.charCodeAt(i)] !== 1) continue;
    tokens.push(text.slice(start, i));
    while (i + 1 < n && ASCII_SEPARATOR[text.charCodeAt(i + 1)] === 1) i++;
    start = i + 1;
  }
  tokens.push(text.slice(start));
  return tokens;
}

/** A piece of text as the tokenizer gave it: its word (null: empty once lowercased) and the last field that had it. */
interface Token {
  term: Term | null;
  /** the (document, field) that last counted it among its distinct pieces */
  stamp: number;
}

/** A word's occurrences: per field, pairs of (short document id, count) in document order. */
interface Term {
  /** field id → flat [docId, count, docId, count, ...] (a hole: the word is not in that field) */
  fields: Array<number[] | undefined>;
}

/** A radix tree node as MiniSearch keeps it: edge text → child, `''` → the word ending here. */
type TreeNode = Map<string, TreeNode | Term>;

const LEAF = '';

/**
 * MiniSearch's `createPath`: the node for `key`, made (splitting an edge when `key` leaves it
 * midway) when missing. The same steps, so each node's keys are inserted in the same order.
 */
function createPath(root: TreeNode, key: string): TreeNode {
  let node = root;
  const keyLength = key.length;
  let pos = 0;
  outer: while (pos < keyLength) {
    for (const k of node.keys()) {
      if (k !== LEAF && key[pos] === k[0]) {
        const len = Math.min(keyLength - pos, k.length);
        let offset = 1;
        while (offset < len && key[pos + offset] === k[offset]) ++offset;
        const child = node.get(k) as TreeNode;
        if (offset === k.length) node = child;
        else {
          const intermediate: TreeNode = new Map();
          intermediate.set(k.slice(offset), child);
          node.set(key.slice(pos, pos + offset), intermediate);
          node.delete(k);
          node = intermediate;
        }
        pos += offset;
        continue outer;
      }
    }
    const child: TreeNode = new Map();
    node.set(key.slice(pos), child);
    return child;
  }
  return node;
}

/** The index's entries in MiniSearch's iteration order, written as `["word",{...}]` into `out`. */
function writeTerms(node: TreeNode, prefix: string, out: string[]): void {
  const keys = Array.from(node.keys());
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    const value = node.get(key)!;
    if (key === LEAF) out.push(termJson(prefix, value as Term));
    else writeTerms(value as TreeNode, prefix + key, out);
  }
}

function termJson(word: string, term: Term): string {
  let json = `[${JSON.stringify(word)},{`;
  let first = true;
  for (let f = 0; f < term.fields.length; f++) {
    const pairs = term.fields[f];
    if (!pairs) continue;
    json += `${first ? '' : ','}"${f}":{`;
    first = false;
    for (let i = 0; i < pairs.length; i += 2) json += `${i === 0 ? '' : ','}"${pairs[i]}":${pairs[i + 1]}`;
    json += '}';
  }
  return `${json}}]`;
}

/** A document as the index takes it: its id, and the fields it indexes and stores. */
export type IndexDoc = Readonly<Record<string, unknown>>;

/**
 * `JSON.stringify` of a MiniSearch index with options `{ fields, storeFields, idField }` (no
 * other option: the default tokenizer and term processing) after `add` of each of `docs` in
 * order; `progress` is called after each `slice` documents added and once the JSON is made.
 * Throws MiniSearch's errors for a document without an id or a duplicate id; a field value that
 * is not a string (or null/undefined, which MiniSearch skips) is refused, as this shortcut does
 * not make MiniSearch's `toString()` of it.
 */
export function miniSearchIndexJson(
  options: { fields: readonly string[]; storeFields: readonly string[]; idField: string },
  docs: readonly IndexDoc[],
  progress?: { slice: number; call: () => void },
): string {
  const { fields, storeFields, idField } = options;
  const root: TreeNode = new Map();
  const terms = new Map<string, Term>();
  /** each piece of text seen, by its text as the tokenizer gave it (before lowercasing) */
  const pieces = new Map<string, Token>();
  /** a word's entry, made (and put in the tree) the first time it is seen */
  const termOf = (word: string): Term => {
    let term = terms.get(word);
    if (term === undefined) {
      const node = createPath(root, word);
      term = node.get(LEAF) as Term | undefined;
      if (term === undefined) {
        term = { fields: [] };
        node.set(LEAF, term);
      }
      terms.set(word, term);
    }
    return term;
  };
  const seen = new Set<unknown>();
  const averages: number[] = [];
  const documentIds: string[] = [];
  const fieldLengths: string[] = [];
  const stored: string[] = [];
  for (let shortId = 0; shortId < docs.length; shortId++) {
    const doc = docs[shortId]!;
    const id = doc[idField];
    if (id == null) throw new Error(`MiniSearch: document does not have ID field "${idField}"`);
    if (seen.has(id)) throw new Error(`MiniSearch: duplicate ID ${id}`);
    seen.add(id);
    documentIds.push(`"${shortId}":${JSON.stringify(id)}`);
    // MiniSearch keeps no stored fields at all without `storeFields`
    if (storeFields.length > 0) {
      const keep: Record<string, unknown> = {};
      for (const name of storeFields) {
        const value = doc[name];
        if (value !== undefined) keep[name] = value;
      }
      stored.push(`"${shortId}":${JSON.stringify(keep)}`);
    }
    const lengths: number[] = [];
    let anyField = false;
    for (let fieldId = 0; fieldId < fields.length; fieldId++) {
      const value = doc[fields[fieldId]!];
      if (value == null) continue;
      if (typeof value !== 'string')
        throw new Error(`search index: field "${fields[fieldId]}" is not a text`);
      anyField = true;
      const tokens = tokenize(value);
      // the field's length: its distinct pieces (`new Set(tokens).size`), counted by stamping
      // each piece's entry with this (document, field)
      const stamp = shortId * fields.length + fieldId;
      let length = 0;
      for (const piece of tokens) {
        let token = pieces.get(piece);
        if (token === undefined) {
          const word = piece.toLowerCase();
          token = { term: word ? termOf(word) : null, stamp: -1 };
          pieces.set(piece, token);
        }
        if (token.stamp !== stamp) {
          token.stamp = stamp;
          length++;
        }
        const term = token.term;
        if (term === null) continue;
        let pairs = term.fields[fieldId];
        if (pairs === undefined) {
          pairs = [];
          term.fields[fieldId] = pairs;
        }
        const last = pairs.length - 1;
        if (last > 0 && pairs[last - 1] === shortId) pairs[last] = pairs[last]! + 1;
        else pairs.push(shortId, 1);
      }
      lengths[fieldId] = length;
      // shortId is the count of documents added before this one
      averages[fieldId] = ((averages[fieldId] || 0) * shortId + length) / (shortId + 1);
    }
    if (anyField) fieldLengths.push(`"${shortId}":${JSON.stringify(lengths)}`);
    if (progress && (shortId + 1) % progress.slice === 0) progress.call();
  }
  if (progress && docs.length % progress.slice !== 0) progress.call();
  const fieldIds: Record<string, number> = {};
  for (let i = 0; i < fields.length; i++) fieldIds[fields[i]!] = i;
  const index: string[] = [];
  writeTerms(root, '', index);
  const json =
    `{"documentCount":${docs.length},"nextId":${docs.length},` +
    `"documentIds":{${documentIds.join(',')}},"fieldIds":${JSON.stringify(fieldIds)},` +
    `"fieldLength":{${fieldLengths.join(',')}},"averageFieldLength":${JSON.stringify(averages)},` +
    `"storedFields":{${stored.join(',')}},"dirtCount":0,"index":[${index.join(',')}],"serializationVersion":2}`;
  progress?.call();
  return json;
}
