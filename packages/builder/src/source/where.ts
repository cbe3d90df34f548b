import { compareValues, conditionHolds, instantOf, itemSlug, sortKeys } from '@trelliscms/core/build';
import type { SnapshotItem } from '../snapshot/types';
import type { WhereCondition } from './content-source';

/**
 * The `where`/`sort` of `{% list %}` and paginated routes over snapshot items. The language
 * (parsing, operators, order) is core's (`core/src/content/list-language.ts`), shared with
 * the API's content lists; this module only reads an item's values.
 */
export { parseSort, parseWhere } from '@trelliscms/core/build';

/** The value of a field or a built-in (`id`, `slug`, `type`, `status`, `createdAt`, `updatedAt`) of an item. */
export function readField(item: SnapshotItem, field: string): unknown {
  switch (field) {
    case 'id':
      return item.id;
    case 'type':
      return item.type;
    case 'slug':
      return itemSlug(item);
    case 'status':
      return item.status;
    case 'createdAt':
      return item.createdAt ?? item.fields.createdAt;
    case 'updatedAt':
      return item.updatedAt ?? item.fields.updatedAt;
    default:
      return item.fields[field];
  }
}

/** Date-time texts a comparator remembers the instant of (bounds its memory). */
const MAX_INSTANTS = 100_000;

/** The order of `SnapshotSource.list`: the sort keys (`-` for descending), then the id. */
export function comparator(sort: readonly string[]): (a: SnapshotItem, b: SnapshotItem) => number {
  const keys = sortKeys(sort);
  // a sort of n items reads each date-time text's instant about 2·log2(n) times: parse each once
  const instants = new Map<string, number | null>();
  const instant = (text: string) => {
    let value = instants.get(text);
    if (value === undefined) {
      value = instantOf(text);
      if (instants.size >= MAX_INSTANTS) instants.clear();
      instants.set(text, value);
    }
    return value;
  };
  return (a, b) => {
    for (const { field, descending } of keys) {
      const order = compareValues(readField(a, field), readField(b, field), instant);
      if (order !== 0) return descending ? -order : order;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/**
 * Sorts items in the order of {@link comparator}, reading each item's sort values once (and
 * each date-time text's instant once) instead of at every comparison: the same order, without
 * parsing dates a million times for a list of 100,000 items.
 */
export function sortItems(items: readonly SnapshotItem[], sort: readonly string[]): SnapshotItem[] {
  return sortOrder(items, sort).map((i) => items[i]!);
}

/** The positions of `items` in the order of {@link sortItems}. */
export function sortOrder(items: readonly SnapshotItem[], sort: readonly string[]): number[] {
  return sortOrderOf(items.length, (i) => items[i]!, sort);
}

/**
 * {@link sortOrder} of `length` items given one at a time by `itemAt` (each asked for once):
 * only the items' ids and sort values are held, not the items (a worker's million records are
 * parsed one by one and let go).
 */
export function sortOrderOf(
  length: number,
  itemAt: (i: number) => SnapshotItem,
  sort: readonly string[],
): number[] {
  const keys = sortKeys(sort);
  const count = keys.length;
  const values: unknown[] = new Array(length * count);
  const instants: Array<number | null> = new Array(length * count);
  const ids: string[] = new Array(length);
  for (let i = 0; i < length; i++) {
    const item = itemAt(i);
    ids[i] = item.id;
    for (let k = 0; k < count; k++) {
      const value = readField(item, keys[k]!.field);
      values[i * count + k] = value;
      instants[i * count + k] = typeof value === 'string' ? instantOf(value) : null;
    }
  }
  const order = Array.from({ length }, (_, i) => i);
  order.sort((i, j) => {
    for (let k = 0; k < count; k++) {
      const a = i * count + k;
      const b = j * count + k;
      const found = compareKnown(values[a], instants[a]!, values[b], instants[b]!);
      if (found !== 0) return keys[k]!.descending ? -found : found;
    }
    const x = ids[i]!;
    const y = ids[j]!;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return order;
}

/** An item's place with its sort values read (see {@link topOrder}). */
interface Ranked {
  index: number;
  id: string;
  values: unknown[];
  instants: Array<number | null>;
}

/**
 * The first `count` of `items` in the order of {@link sortItems}, without sorting them all: one
 * pass that keeps the best `count` so far in a heap (O(n log count) comparisons, and only the
 * kept items' sort values held). Null when a sort field holds values of different kinds
 * (numbers and texts, say): the order of such values is not a total order, and only a full
 * sort is guaranteed to give what {@link sortItems} gives.
 */
export function topItems(
  items: readonly SnapshotItem[],
  sort: readonly string[],
  count: number,
): SnapshotItem[] | null {
  return topOrder(items.length, (i) => items[i]!, sort, count)?.map((i) => items[i]!) ?? null;
}

/**
 * {@link topItems} of `length` items given one at a time by `itemAt` (each asked for once, none
 * held but the kept ones' values): their positions, in order.
 */
export function topOrder(
  length: number,
  itemAt: (i: number) => SnapshotItem,
  sort: readonly string[],
  count: number,
): number[] | null {
  if (count <= 0) return [];
  const keys = sortKeys(sort);
  const kinds: Array<string | null> = keys.map(() => null);
  const compare = (a: Ranked, b: Ranked): number => {
    for (let k = 0; k < keys.length; k++) {
      const found = compareKnown(a.values[k], a.instants[k]!, b.values[k], b.instants[k]!);
      if (found !== 0) return keys[k]!.descending ? -found : found;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
  // a max-heap: the worst of the kept items at the root
  const heap: Ranked[] = [];
  const down = (from: number) => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) return;
      const right = left + 1;
      const child = right < heap.length && compare(heap[right]!, heap[left]!) > 0 ? right : left;
      if (compare(heap[child]!, heap[at]!) <= 0) return;
      [heap[at], heap[child]] = [heap[child]!, heap[at]!];
      at = child;
    }
  };
  for (let index = 0; index < length; index++) {
    const item = itemAt(index);
    const values: unknown[] = new Array(keys.length);
    const instants: Array<number | null> = new Array(keys.length);
    for (let k = 0; k < keys.length; k++) {
      const value = readField(item, keys[k]!.field);
      values[k] = value;
      instants[k] = typeof value === 'string' ? instantOf(value) : null;
      if (value === null || value === undefined) continue;
      const kind = typeof value;
      if (kinds[k] === null) kinds[k] = kind;
      else if (kinds[k] !== kind) return null;
    }
    const ranked: Ranked = { index, id: item.id, values, instants };
    if (heap.length < count) {
      heap.push(ranked);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (compare(heap[at]!, heap[parent]!) <= 0) break;
        [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
        at = parent;
      }
    } else if (compare(ranked, heap[0]!) < 0) {
      heap[0] = ranked;
      down(0);
    }
  }
  return heap.sort(compare).map((ranked) => ranked.index);
}

/** core's `compareValues` with each text's instant given (null: not a date-time, or not a text). */
function compareKnown(a: unknown, x: number | null, b: unknown, y: number | null): number {
  const aMissing = a === null || a === undefined;
  const bMissing = b === null || b === undefined;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'string' && typeof b === 'string' && a !== b) {
    if (x !== null && y !== null) return x - y;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
    return a < b ? -1 : 1;
  }
  return compareValues(a, b);
}

/** More changed items than this: sorting a list again is cheaper than inserting them one by one. */
export const MAX_PATCHED = 256;

/**
 * Inserts `items` into `sorted` (ordered by `compare`), each at its place. False when an item
 * does not rank strictly before its successor (values the comparator cannot rank): `sorted` is
 * then part-patched, and the caller sorts again.
 */
export function insertSorted<T>(sorted: T[], items: T[], compare: (a: T, b: T) => number): boolean {
  for (const item of items.sort(compare)) {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(sorted[mid]!, item) < 0) low = mid + 1;
      else high = mid;
    }
    if (low < sorted.length && compare(item, sorted[low]!) >= 0) return false;
    sorted.splice(low, 0, item);
  }
  return true;
}

/** True when the item satisfies one condition (core's list language). */
export function matches(item: SnapshotItem, condition: WhereCondition): boolean {
  return conditionHolds(readField(item, condition.field), condition);
}
