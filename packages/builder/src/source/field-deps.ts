import { hash } from 'node:crypto';
import { canonicalJson, itemSlug } from '@trelliscms/core/build';
import { Drop } from 'liquidjs';
import { urlKeyOf } from '../plan/site-locales';
import { spreadFields } from '../snapshot/shared-store';
import type { SnapshotItem } from '../snapshot/types';
import { itemHash } from './item-hash';

/**
 * Field-level item dependencies. A page records, for each item it read, either the item's full
 * dependency hash (`<item hash>|<urls>`: the page read all of it, e.g. `{{ post | json }}` or
 * `post.fields`), or only the keys of the item's template view it read, with a hash of their
 * values: `f:<hash>:<keys as JSON>` (an item read without any key, e.g. `{% if item %}`,
 * records `f:<hash>:[]`: it exists). An edit to a key a page did not read leaves its hash as
 * it was, so the page is carried.
 */
const PARTIAL_PREFIX = 'f:';
/** sha1, base64url: 27 characters */
const HASH_LENGTH = 27;

/** Whether a recorded item dependency names the keys it read (else it is a full hash or `''`). */
export function isPartialDep(recorded: string): boolean {
  return (
    recorded.startsWith(PARTIAL_PREFIX) && recorded.charCodeAt(PARTIAL_PREFIX.length + HASH_LENGTH) === 58
  );
}

/** The keys (as JSON) a partial dependency names. */
export function partialKeysJson(recorded: string): string {
  return recorded.slice(PARTIAL_PREFIX.length + HASH_LENGTH + 1);
}

/** An own member of an object (`constructor` of a plain object is no field). */
function own(object: Readonly<Record<string, unknown>> | undefined, key: string): unknown {
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * `u` for a missing value, else `j` and its canonical JSON. A text, a boolean, a finite number or
 * null is written as `canonicalJson` writes it (`JSON.stringify`), without its walk's set of
 * objects seen (one per call: most values read are texts).
 */
function encode(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null) return 'jnull';
  const kind = typeof value;
  if (kind === 'string' || kind === 'boolean' || (kind === 'number' && Number.isFinite(value)))
    return `j${JSON.stringify(value)}`;
  return `j${canonicalJson(value)}`;
}

/** The value behind one key of an item's template view, as text (see `TrackingReader.view`). */
function keyValue(
  item: SnapshotItem,
  key: string,
  urls: ReadonlyMap<string, string>,
  codes: readonly string[],
) {
  switch (key) {
    // the same for every view of the item (`locale` is the page's)
    case 'id':
    case 'locale':
      return '';
    case 'type':
      return item.type;
    case 'slug':
      return itemSlug(item);
    case 'url':
      return urlKeyOf(urls, item.id, codes);
    case 'status':
      return encode(item.status ?? null);
    case 'updatedAt':
      return encode(item.updatedAt ?? null);
    case 'version':
      return encode(item.version ?? null);
    case 'relationships':
      return encode(item.relationships ?? {});
    case 'fields':
      return itemHash(item);
    default: {
      // a field, in the default locale and each translation (a page in any locale reads one of them)
      let text = encode(own(item.fields, key));
      const translations = item.translations;
      if (translations) {
        for (const code of Object.keys(translations).sort())
          text += `\t${code}=${encode(own(translations[code], key))}`;
      }
      return text;
    }
  }
}

/** The partial dependency of an item whose view keys `keys` (sorted, as `keysJson`) were read. */
export function partialDep(
  item: SnapshotItem,
  keys: readonly string[],
  keysJson: string,
  urls: ReadonlyMap<string, string>,
  codes: readonly string[],
): string {
  let text = item.id;
  for (const key of keys) text += `\n${key}\n${keyValue(item, key, urls, codes)}`;
  return `${PARTIAL_PREFIX}${hash('sha1', text, 'base64url')}:${keysJson}`;
}

/** The current value of a recorded partial dependency for `item` (null: the item is gone). */
export function currentPartialDep(
  item: SnapshotItem | null,
  recorded: string,
  urls: ReadonlyMap<string, string>,
  codes: readonly string[],
): string {
  if (!item) return '';
  const keysJson = partialKeysJson(recorded);
  let keys: string[];
  try {
    keys = JSON.parse(keysJson) as string[];
  } catch {
    return '';
  }
  return partialDep(item, keys, keysJson, urls, codes);
}

/** The keys of a view's reads, sorted, as JSON, and the partial dependency they give (memoized). */
export interface SortedKeys {
  keys: readonly string[];
  json: string;
  /** the item's partial dependency for these keys (see `TrackingReader.collect`) */
  dep?: string;
}

/** Sets of keys kept per view (pages read a few sets of a view's keys: a card's, the item's own page's). */
const KEPT_SETS = 4;

/**
 * Sets of keys sorted before, shared by every view (most views are read for the same few sets:
 * a card's, an item's own page's): a set found here is neither sorted nor written as JSON again.
 * Their arrays are never changed.
 */
const knownSets: Array<{ keys: readonly string[]; json: string }> = [];
const KNOWN_SETS = 16;

/** Whether `keys` holds exactly the members of `set` (`keys` has no duplicates). */
function sameKeys(keys: readonly string[], set: ReadonlySet<string>): boolean {
  if (keys.length !== set.size) return false;
  for (let j = 0; j < keys.length; j++) if (!set.has(keys[j]!)) return false;
  return true;
}

/**
 * The keys of `reads`, sorted, and as JSON: one of the sets this view's pages read before when
 * it is the same set (no sorting, no JSON, and its dependency value kept with it).
 */
export function sortedKeys(reads: ViewReads): SortedKeys {
  const seen = reads.sorted;
  if (seen) {
    for (let i = 0; i < seen.length; i++) {
      const known = seen[i]!;
      if (sameKeys(known.keys, reads.keys)) return known;
    }
  }
  let sorted: SortedKeys | undefined;
  for (let i = 0; i < knownSets.length; i++) {
    const known = knownSets[i]!;
    if (sameKeys(known.keys, reads.keys)) {
      sorted = { keys: known.keys, json: known.json };
      break;
    }
  }
  if (sorted === undefined) {
    // insertion sort by UTF-16 code units (the order of `Array.prototype.sort`'s default), for
    // the few keys a view is read for: no sort's work space
    const keys: string[] = [];
    for (const key of reads.keys) {
      let i = keys.length;
      keys.push(key);
      while (i > 0 && keys[i - 1]! > key) {
        keys[i] = keys[i - 1]!;
        i--;
      }
      keys[i] = key;
    }
    sorted = { keys, json: JSON.stringify(keys) };
    if (knownSets.length >= KNOWN_SETS) knownSets.pop();
    knownSets.unshift({ keys, json: sorted.json });
  }
  if (!seen) reads.sorted = [sorted];
  else {
    if (seen.length >= KEPT_SETS) seen.pop();
    seen.unshift(sorted);
  }
  return sorted;
}

/** What one page read of one item view (reused from page to page: no allocation per read). */
export interface ViewReads {
  item: SnapshotItem;
  /** the render (`TrackingReader.epoch`) these reads belong to */
  epoch: number;
  keys: Set<string>;
  /** the page read every key (listed them, iterated or serialized the view) */
  all: boolean;
  /** @internal sets of keys read when collected before, sorted, as JSON (pages often read the same keys) */
  sorted?: SortedKeys[];
}

/**
 * One read of a view, as a render made it: a key, {@link READ_ALL} (every key) or
 * {@link READ_TOUCH} (the view was reached, no key read).
 */
export type ViewRead = [reads: ViewReads, key: string | typeof READ_ALL | typeof READ_TOUCH];
export const READ_ALL: unique symbol = Symbol('trellis.readAll');
export const READ_TOUCH: unique symbol = Symbol('trellis.readTouch');

/** The reader side of tracked views: the current render and the views it touched. */
export interface ReadRecorder {
  epoch: number;
  touched: ViewReads[];
  /**
   * Where each read is also logged while part of a render is recorded to be replayed (see
   * `liquid/render-memo.ts`); empty otherwise.
   */
  taps: ViewRead[][];
}

function touch(recorder: ReadRecorder, reads: ViewReads): ViewReads {
  if (reads.epoch !== recorder.epoch) {
    reads.epoch = recorder.epoch;
    reads.keys.clear();
    reads.all = false;
    recorder.touched.push(reads);
  }
  return reads;
}

/** Notes one read against the render in progress (and logs it to the recorder's taps). */
function note(recorder: ReadRecorder, reads: ViewReads, key: ViewRead[1]): void {
  touch(recorder, reads);
  if (key === READ_ALL) reads.all = true;
  else if (key !== READ_TOUCH && !reads.all) reads.keys.add(key);
  for (const tap of recorder.taps) tap.push([reads, key]);
}

/** Notes logged reads again, as the render that logged them made them (a memoized partial's). */
export function replayReads(recorder: ReadRecorder, reads: readonly ViewRead[]): void {
  for (const [view, key] of reads) note(recorder, view, key);
}

/**
 * What a template sees of an item: a liquidjs `Drop` whose keys (the item's fields, `url`,
 * `slug`, ...) are not properties of its own, so liquidjs reads each through
 * `liquidMethodMissing` (it skips its own-property check for drops), which notes the key in the
 * view's {@link ViewReads} for the render in progress: a key the item lacks is noted too (it
 * may appear later). Reading every key — `{{ post | json }}` (`toJSON`), `post.size`, iterating
 * the view, {@link viewEntries} — notes the whole item. Only `id` is a property (it never
 * changes, and tags read it to find the item). A method call, no proxy: reading a key costs
 * about what reading a plain object's does.
 *
 * Its keys are `{ ...fields, ...meta }` (the item's fields, then `id`, `type`, `slug`, `url`,
 * ...): a key is read from `meta`, else from `fields` (the item's own object, whose long values
 * stay in shared memory); that object is made only when the whole view is read. What the view
 * keeps for itself is in private fields, out of templates' reach.
 */
export class ItemView extends Drop {
  readonly id: string;
  readonly #fields: Record<string, unknown>;
  readonly #meta: Record<string, unknown>;
  #data: Record<string, unknown> | undefined;
  readonly #reads: ViewReads;
  readonly #recorder: ReadRecorder;

  /**
   * @param fields the item's fields (in the view's locale)
   * @param meta the keys the view adds after them, in order (`id` first)
   */
  constructor(
    fields: Record<string, unknown>,
    meta: Record<string, unknown> & { id: string },
    item: SnapshotItem,
    recorder: ReadRecorder,
  ) {
    super();
    this.id = meta.id;
    this.#fields = fields ?? {};
    this.#meta = meta;
    this.#reads = { item, epoch: -1, keys: new Set<string>(), all: false };
    this.#recorder = recorder;
  }

  /** `{ ...fields, ...meta }`, the long values left in shared memory (made once, when read whole). */
  #whole(): Record<string, unknown> {
    let data = this.#data;
    if (data === undefined) {
      data = spreadFields(this.#fields);
      const meta = this.#meta;
      for (const key in meta) data[key] = meta[key];
      this.#data = data;
    }
    return data;
  }

  override liquidMethodMissing(key: string | number): unknown {
    const name = String(key);
    const meta = this.#meta;
    if (Object.hasOwn(meta, name)) {
      note(this.#recorder, this.#reads, name);
      return meta[name];
    }
    const fields = this.#fields;
    const has = Object.hasOwn(fields, name);
    // liquidjs's `size` of an object without a `size` key is its number of keys
    if (name === 'size' && !has) {
      note(this.#recorder, this.#reads, READ_ALL);
      return Object.keys(this.#whole()).length;
    }
    note(this.#recorder, this.#reads, name);
    return has ? fields[name] : undefined;
  }

  /** Serialized (`| json`): the whole item. */
  toJSON(): Record<string, unknown> {
    note(this.#recorder, this.#reads, READ_ALL);
    return this.#whole();
  }

  /** Iterated (`{% for pair in item %}`): `[key, value]` pairs, like a plain object: the whole item. */
  *[Symbol.iterator](): IterableIterator<[string, unknown]> {
    note(this.#recorder, this.#reads, READ_ALL);
    const data = this.#whole();
    for (const key of Object.keys(data)) yield [key, data[key]];
  }

  /** Shown as text (`{{ item }}`): what a plain object shows. */
  [Symbol.toPrimitive](): string {
    return '[object Object]';
  }

  /** @internal marks the view read by the current render without reading a key (a static member: no template reaches it) */
  static touch(view: ItemView): void {
    note(view.#recorder, view.#reads, READ_TOUCH);
  }
}

// liquidjs reads a drop's keys as properties before `liquidMethodMissing`, inherited ones too:
// what a view inherits from `Object.prototype` (`constructor`, `__proto__`, `toString`, ...)
// is hidden, so a template reaches no prototype through a view (as with a plain object, where
// liquidjs reads own properties only).
for (const name of Object.getOwnPropertyNames(Object.prototype)) {
  Object.defineProperty(ItemView.prototype, name, {
    value: undefined,
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

/** One key of a view read from JavaScript (noted like a template's read). */
export function viewValue(view: ItemView, key: string): unknown {
  return view.liquidMethodMissing(key);
}

/** Every key of a view with its value, from JavaScript: the whole item is noted as read. */
export function viewEntries(view: ItemView): Record<string, unknown> {
  return view.toJSON();
}

/** Marks a view read by the current render without reading a key (it exists). */
export function touchView(view: ItemView): void {
  ItemView.touch(view);
}
