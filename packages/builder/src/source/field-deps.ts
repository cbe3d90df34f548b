import { hash } from 'node:crypto';
import { canonicalJson, itemSlug } from '@trelliscms/core/build';
import { urlKeyOf } from '../plan/site-locales';
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

function encode(value: unknown): string {
  return value === undefined ? 'u' : `j${canonicalJson(value)}`;
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
      let text = encode(item.fields[key]);
      const translations = item.translations;
      if (translations) {
        for (const code of Object.keys(translations).sort())
          text += `\t${code}=${encode(translations[code]?.[key])}`;
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

/** What one page read of one item view (reused from page to page: no allocation per read). */
export interface ViewReads {
  item: SnapshotItem;
  /** the render (`TrackingReader.epoch`) these reads belong to */
  epoch: number;
  keys: Set<string>;
  /** the page read every key (listed them, copied or serialized the view) */
  all: boolean;
}

/** Where a tracked view keeps its reads (a non-enumerable member of the view object). */
export const READS: unique symbol = Symbol('trellis.viewReads');

/**
 * Names JavaScript and liquidjs probe on any object (`toLiquid`, iterator and promise checks,
 * conversions): not field reads unless the view has such a key.
 */
const PROBES = new Set([
  'toLiquid',
  'liquidMethodMissing',
  'then',
  'next',
  'toJSON',
  'valueOf',
  'toString',
  'constructor',
]);

/** The reader side of tracked views: the current render and the views it touched. */
export interface ReadRecorder {
  epoch: number;
  touched: ViewReads[];
}

type Target = Record<string | symbol, unknown> & { [READS]: ViewReads };

function touch(recorder: ReadRecorder, reads: ViewReads): ViewReads {
  if (reads.epoch !== recorder.epoch) {
    reads.epoch = recorder.epoch;
    reads.keys.clear();
    reads.all = false;
    recorder.touched.push(reads);
  }
  return reads;
}

/** Marks a view read by the current render without reading a key (it exists). */
export function touchView(recorder: ReadRecorder, view: object): void {
  const reads = (view as Target)[READS];
  if (reads) touch(recorder, reads);
}

/**
 * The proxy handler of a reader's tracked views: every read of a view's key from a template,
 * a filter or plain JavaScript (liquidjs checks `hasOwnProperty` before reading, so a key the
 * view lacks is recorded too: it may appear later) is recorded in the view's {@link ViewReads}
 * for the render in progress; listing the keys (`Object.keys`, spreading, `JSON.stringify`,
 * liquidjs's `size` of an object) records the whole item.
 */
export function viewHandler(recorder: ReadRecorder): ProxyHandler<Target> {
  const note = (target: Target, key: string) => {
    const reads = touch(recorder, target[READS]);
    if (!reads.all) reads.keys.add(key);
  };
  return {
    get(target, key) {
      const value = target[key];
      if (typeof key !== 'string') return value;
      // a probe finds nothing, or a function of Object.prototype
      if (
        (value === undefined || typeof value === 'function') &&
        PROBES.has(key) &&
        !Object.hasOwn(target, key)
      )
        return value;
      note(target, key);
      return value;
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === 'string') note(target, key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    has(target, key) {
      if (typeof key === 'string') note(target, key);
      return key in target;
    },
    ownKeys(target) {
      touch(recorder, target[READS]).all = true;
      return Reflect.ownKeys(target);
    },
  };
}

/** Makes `view` a tracked view of `item`. */
export function trackedView<T extends Record<string, unknown>>(
  view: T,
  item: SnapshotItem,
  handler: ProxyHandler<Target>,
): T {
  const reads: ViewReads = { item, epoch: -1, keys: new Set(), all: false };
  Object.defineProperty(view, READS, { value: reads, enumerable: false });
  return new Proxy(view as unknown as Target, handler) as unknown as T;
}
