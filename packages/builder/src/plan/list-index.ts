import type { SnapshotItem } from '../snapshot/types';
import type { ListQuery, WhereCondition } from '../source/content-source';
import type { SnapshotSource } from '../source/snapshot-source';
import { comparator, insertSorted, MAX_PATCHED, matches } from '../source/where';

export { comparator };

/** The sorted, filtered ids of one list query (without offset and limit), and what they were computed from. */
export interface SortedList {
  type: string;
  ids: string[];
}

/** The cache key of a list query's full result: type, conditions and sort (offset and limit apart). */
export function listKey(query: Pick<ListQuery, 'type' | 'where' | 'sort'>): string {
  return JSON.stringify([query.type, query.where ?? [], query.sort ?? []]);
}

/**
 * The full results of list queries (every matching item, sorted as `SnapshotSource.list`
 * sorts), kept between builds as ids. A list of the previous build is brought up to date by
 * taking out the items whose content changed and inserting them again at their sorted place,
 * instead of filtering and sorting every item of the type again: items whose content hash is
 * unchanged keep their relative order. Only lists of types without a changed item are reused
 * as they are.
 */
export class ListIndex {
  private readonly source: SnapshotSource;
  private readonly previous: ReadonlyMap<string, SortedList>;
  /** ids whose content (hash, `updatedAt`, type or visibility) changed since `previous` was computed */
  private readonly changed: ReadonlySet<string>;
  private readonly changedTypes: ReadonlySet<string>;
  /** lists computed or confirmed for the current snapshot */
  readonly current = new Map<string, SortedList>();
  /**
   * For lists brought up to date from the previous build's: the positions where they may differ
   * (from inclusive, to exclusive) when their length did not change; absent: anywhere.
   */
  private readonly spans = new Map<string, { from: number; to: number } | 'none'>();

  constructor(params: {
    source: SnapshotSource;
    previous?: ReadonlyMap<string, SortedList> | null;
    changed?: ReadonlySet<string>;
    changedTypes?: ReadonlySet<string>;
  }) {
    this.source = params.source;
    this.previous = params.previous ?? new Map();
    this.changed = params.changed ?? new Set();
    this.changedTypes = params.changedTypes ?? new Set();
  }

  /** The ids of every item the query matches, sorted (offset and limit ignored). */
  sortedIds(query: ListQuery): string[] {
    const key = listKey(query);
    const known = this.current.get(key);
    if (known) return known.ids;
    const before = this.previous.get(key);
    let ids: string[] | null = null;
    if (before && before.type === query.type) {
      if (this.changedTypes.has(query.type)) {
        ids = this.patch(before.ids, query);
        const span = ids ? spanOf(before.ids, ids, this.changed) : undefined;
        if (span) this.spans.set(key, span);
      } else {
        ids = before.ids;
        this.spans.set(key, 'none');
      }
    }
    if (!ids) {
      ids = this.source
        .list({ type: query.type, where: query.where, sort: query.sort })
        .items.map((i) => i.id);
    }
    this.current.set(key, { type: query.type, ids });
    return ids;
  }

  /**
   * Whether the ids of a query's page (offset and limit applied) and the total can differ from
   * the previous build's: false only when the list was brought up to date from the previous
   * one with its length unchanged and the changed items' old and new positions all outside the page.
   */
  pageMayDiffer(query: ListQuery): boolean {
    this.sortedIds(query);
    const span = this.spans.get(listKey(query));
    if (span === undefined) return true;
    if (span === 'none') return false;
    const offset = Math.max(0, query.offset ?? 0);
    const end = query.limit === undefined ? Number.POSITIVE_INFINITY : offset + Math.max(0, query.limit);
    return offset < span.to && span.from < end;
  }

  /** The query's page (offset and limit applied) and total, as `SnapshotSource.list` answers it. */
  list(query: ListQuery): { items: SnapshotItem[]; total: number } {
    const ids = this.sortedIds(query);
    const offset = Math.max(0, query.offset ?? 0);
    const end = query.limit === undefined ? undefined : offset + Math.max(0, query.limit);
    const items: SnapshotItem[] = [];
    for (const id of ids.slice(offset, end)) items.push(this.source.item(id)!);
    return { items, total: ids.length };
  }

  private patch(before: readonly string[], query: ListQuery): string[] | null {
    const changed = this.changed;
    const conditions: WhereCondition[] = query.where ?? [];
    const compare = comparator(query.sort ?? []);
    const inserts: SnapshotItem[] = [];
    for (const id of changed) {
      const item = this.source.item(id);
      if (item && item.type === query.type && conditions.every((c) => matches(item, c))) inserts.push(item);
    }
    if (inserts.length > MAX_PATCHED) return null;
    const items: SnapshotItem[] = [];
    for (const id of before) {
      if (changed.has(id)) continue;
      const item = this.source.item(id);
      // an unchanged id that is gone or of another type means the previous list is not what we think
      if (!item || item.type !== query.type) return null;
      items.push(item);
    }
    return insertSorted(items, inserts, compare) ? items.map((item) => item.id) : null;
  }
}

/** Where two versions of a list may differ: around the old and new positions of changed ids ('none': nowhere; absent: lengths differ). */
function spanOf(
  before: readonly string[],
  after: readonly string[],
  changed: ReadonlySet<string>,
): { from: number; to: number } | 'none' | undefined {
  if (before.length !== after.length) return undefined;
  let from = Number.POSITIVE_INFINITY;
  let to = -1;
  for (const ids of [before, after]) {
    for (let i = 0; i < ids.length; i++) {
      if (!changed.has(ids[i]!)) continue;
      if (i < from) from = i;
      if (i > to) to = i;
    }
  }
  return to < 0 ? 'none' : { from, to: to + 1 };
}
