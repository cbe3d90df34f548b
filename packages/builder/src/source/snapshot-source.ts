import {
  bindQueryParams,
  type GraphQueryReader,
  type QueryResult,
  type QueryTypeInfo,
  runGraphQuerySync,
  TrellisError,
} from '@trelliscms/core/build';
import type { StoreReader } from '../snapshot/shared-store';
import type {
  Snapshot,
  SnapshotEdge,
  SnapshotItem,
  SnapshotSite,
  SnapshotTemplate,
  SnapshotType,
} from '../snapshot/types';
import type {
  ContentSource,
  ListQuery,
  ListResult,
  SavedQueryRun,
  SimilarQuery,
  TraverseQuery,
  WhereCondition,
} from './content-source';
import { comparator, insertSorted, MAX_PATCHED, matches, sortOrderOf, topOrder } from './where';

/** Whether an item is part of an environment's build: `dev` builds everything, others only what is published there. */
export function isVisibleIn(item: SnapshotItem, env: string): boolean {
  return env === 'dev' || (item.publishedEnvs ?? []).includes(env);
}

/**
 * A {@link ContentSource} over a snapshot held in memory, with indexes by id, type and edge.
 * It answers synchronously. With `env`, items not visible in that environment do not exist
 * for queries (`item`, `list`, `traverse`, `similar`).
 *
 * With a `store` (a render worker's: see `StoreReader`), the items and edges are read from the
 * shared store instead of `snapshot.items` and `snapshot.edges` (left empty): the indexes by id,
 * type and edge are the store's, shared by every worker, and an item is parsed when read. It
 * answers exactly as a source over the snapshot's items and edges would; items changed by
 * {@link update} are held here.
 */
export class SnapshotSource implements ContentSource {
  private current: Snapshot;
  readonly env: string;
  /** the shared store the items and edges are read from (a render worker's), or null */
  private readonly store: StoreReader | null;
  /** by id: every visible item (without a store), or the items changed since the store was made (null: gone) */
  private readonly byId = new Map<string, SnapshotItem | null>();
  /** by type: every type's visible items (without a store), or those of the types changed since the store was made */
  private readonly byType = new Map<string, SnapshotItem[]>();
  private out = new Map<string, SnapshotEdge[]>();
  private in = new Map<string, SnapshotEdge[]>();
  // the edge index is built on first use: planning an incremental build rarely traverses
  private edgesIndexed = false;
  /** full results of list queries (offset and limit apart), by type, conditions and sort */
  private readonly sortedCache = new Map<string, SortedEntry>();
  /** the first items of list queries asked with a small limit and no full result (see {@link topItems}) */
  private readonly topCache = new Map<string, TopEntry>();
  /** results of saved query runs, by run (cleared when items change) */
  private readonly queryCache = new Map<string, QueryResult<SnapshotItem>>();

  constructor(params: { snapshot: Snapshot; env?: string; store?: StoreReader }) {
    this.current = params.snapshot;
    this.env = params.env ?? 'dev';
    this.store = params.store ?? null;
    if (this.store && this.store.env !== this.env)
      throw new Error(`the shared store is of environment ${this.store.env}, not ${this.env}`);
    if (this.store) return;
    for (const item of this.data.items) {
      if (!isVisibleIn(item, this.env)) continue;
      this.byId.set(item.id, item);
      push(this.byType, item.type, item);
    }
  }

  /** The snapshot this source answers from (with a store: without its items and edges). */
  get data(): Snapshot {
    return this.current;
  }

  /** The visible item with this id. */
  private lookup(id: string): SnapshotItem | undefined {
    const store = this.store;
    if (!store) return this.byId.get(id) ?? undefined;
    const changed = this.byId.get(id);
    if (changed !== undefined) return changed ?? undefined;
    const node = store.node(id);
    return store.visible(node) ? store.item(node) : undefined;
  }

  private setItem(id: string, item: SnapshotItem): void {
    this.byId.set(id, item);
  }

  private deleteItem(id: string): void {
    if (this.store) this.byId.set(id, null);
    else this.byId.delete(id);
  }

  /** How many visible items a type has. */
  private countOfType(type: string): number {
    const list = this.byType.get(type);
    if (list || !this.store) return list?.length ?? 0;
    return this.store.positionsOfType(type).length;
  }

  /** The item at `position` in {@link itemsOfType}. */
  private itemOfType(type: string, position: number): SnapshotItem {
    const list = this.byType.get(type);
    if (list || !this.store) return list![position]!;
    return this.store.item(this.store.positionsOfType(type)[position]!);
  }

  /**
   * Moves the source to `snapshot`: the snapshot it holds with the items of `changed` replaced
   * or added and the `removed` ids gone; its edges and everything but its items must be the
   * same. Keeps what does not depend on the changed items: the lists of other types, the lists
   * of changed types brought up to date by taking their changed items out and inserting them
   * again at their sorted place (when there are few), and the edge index while no item
   * appeared or went. Answers exactly as a new source over `snapshot` would.
   */
  update(snapshot: Snapshot, changed: readonly SnapshotItem[], removed: readonly string[]): void {
    this.current = snapshot;
    const ids = new Set<string>();
    const types = new Set<string>();
    let membership = false;
    for (const id of removed) {
      const old = this.lookup(id);
      if (!old) continue;
      this.deleteItem(id);
      ids.add(id);
      types.add(old.type);
      membership = true;
    }
    for (const item of changed) {
      const old = this.lookup(item.id);
      const visible = isVisibleIn(item, this.env);
      if (old) types.add(old.type);
      if (visible) {
        this.setItem(item.id, item);
        types.add(item.type);
      } else this.deleteItem(item.id);
      if (!old !== !visible) membership = true;
      ids.add(item.id);
    }
    if (ids.size === 0) return;
    this.queryCache.clear();
    // lists of touched types held as positions: their items, while the positions still hold
    for (const entry of this.sortedCache.values()) {
      if (entry.items || !types.has(entry.type)) continue;
      const ofType = this.itemsOfType(entry.type);
      entry.items = Array.from(entry.positions!, (position) => ofType[position]!);
    }
    // Each touched type in its order: changed items in place, gone ones out, new ones last.
    for (const type of types) {
      const next: SnapshotItem[] = [];
      const placed = new Set<string>();
      for (const item of this.itemsOfType(type)) {
        if (!ids.has(item.id)) next.push(item);
        else {
          const now = this.lookup(item.id);
          if (now && now.type === type) {
            next.push(now);
            placed.add(item.id);
          }
        }
      }
      for (const id of ids) {
        const now = this.lookup(id);
        if (now && now.type === type && !placed.has(id)) next.push(now);
      }
      // (with a store, a type's list is held here from its first change on)
      if (next.length > 0 || this.store) this.byType.set(type, next);
      else this.byType.delete(type);
    }
    for (const [key, entry] of this.sortedCache) {
      if (!types.has(entry.type)) continue;
      const patched = ids.size <= MAX_PATCHED ? patchSorted(entry, ids, (id) => this.lookup(id)) : null;
      if (patched) {
        // positions were in the type's old order
        entry.items = patched;
        entry.positions = null;
      } else this.sortedCache.delete(key);
    }
    for (const [key, entry] of this.topCache) if (types.has(entry.type)) this.topCache.delete(key);
    if (membership && this.edgesIndexed) {
      this.edgesIndexed = false;
      this.out = new Map();
      this.in = new Map();
    }
  }

  /**
   * Builds the indexes a first query would (the edge index), so that the first page does not
   * pay for them within its render time limit (a render worker calls it while loading).
   */
  prepare(): void {
    if (this.store) return;
    if (!this.edgesIndexed && (this.data.edges?.length ?? 0) > 0) this.indexEdges();
  }

  private indexEdges(): void {
    this.edgesIndexed = true;
    for (const edge of this.data.edges ?? []) {
      if (!this.byId.has(edge.from) || !this.byId.has(edge.to)) continue;
      push(this.out, edge.from, edge);
      push(this.in, edge.to, edge);
    }
  }

  site(): SnapshotSite {
    return this.data.site;
  }

  types(): SnapshotType[] {
    return this.data.types;
  }

  templates(): SnapshotTemplate[] {
    return this.data.templates;
  }

  item(id: string): SnapshotItem | null {
    return this.lookup(id) ?? null;
  }

  /**
   * Every visible item of a type, in snapshot order. With a store, made for the call (every
   * item of the type parsed): the queries below read one item at a time where they can.
   */
  itemsOfType(type: string): readonly SnapshotItem[] {
    const list = this.byType.get(type);
    const store = this.store;
    if (list || !store) return list ?? [];
    return Array.from(store.positionsOfType(type), (position) => store.item(position));
  }

  /**
   * A type's visible items one at a time, for a query that looks at them all and keeps a few:
   * with a store, `at` parses an item without keeping it (a million items are never all held
   * at once) and `keep` gives the object {@link item} gives.
   */
  private scan(type: string): {
    length: number;
    at: (i: number) => SnapshotItem;
    keep: (i: number) => SnapshotItem;
  } {
    const store = this.store;
    if (!store || this.byType.has(type)) {
      const list = this.itemsOfType(type);
      const at = (i: number) => list[i]!;
      return { length: list.length, at, keep: at };
    }
    const positions = store.positionsOfType(type);
    return {
      length: positions.length,
      at: (i) => store.peek(positions[i]!),
      keep: (i) => store.item(positions[i]!),
    };
  }

  list(query: ListQuery): ListResult {
    const key = JSON.stringify([query.type, query.where ?? [], query.sort ?? []]);
    const offset = Math.max(0, query.offset ?? 0);
    const end = query.limit === undefined ? undefined : offset + Math.max(0, query.limit);
    let entry = this.sortedCache.get(key);
    if (!entry && end !== undefined) {
      const top = this.top(key, query, end);
      if (top) return { items: top.items.slice(offset, end), total: top.total };
    }
    if (!entry) {
      const conditions = query.where ?? [];
      const sort = query.sort ?? [];
      const scan = this.scan(query.type);
      let matching: number[] | null = null;
      if (conditions.length > 0) {
        matching = [];
        for (let i = 0; i < scan.length; i++)
          if (conditions.every((c) => matches(scan.at(i), c))) matching.push(i);
      }
      const order = matching
        ? sortOrderOf(matching.length, (i) => scan.at(matching[i]!), sort)
        : sortOrderOf(scan.length, scan.at, sort);
      const positions = new Int32Array(order.length);
      for (let i = 0; i < order.length; i++) positions[i] = matching ? matching[order[i]!]! : order[i]!;
      entry = { type: query.type, conditions, sort, compare: comparator(sort), items: null, positions };
      this.sortedCache.set(key, entry);
    }
    if (entry.items) return { items: entry.items.slice(offset, end), total: entry.items.length };
    // a list held as positions (its items are made when a patch needs them)
    const positions = entry.positions!;
    const last = Math.min(positions.length, end ?? positions.length);
    const items: SnapshotItem[] = [];
    for (let i = offset; i < last; i++) items.push(this.itemOfType(entry.type, positions[i]!));
    return { items, total: positions.length };
  }

  /**
   * The first `end` items of a list query and its total, by one pass over the type's items
   * instead of a sort of them all (a home page's latest ten of a million posts); null when a
   * full sort is as cheap or needed. Kept for later queries of the same list.
   */
  private top(key: string, query: ListQuery, end: number): TopEntry | null {
    let known = this.topCache.get(key);
    if (known && (known.items.length >= end || known.items.length === known.total)) return known;
    if (end > MAX_TOP || end * TOP_FACTOR > this.countOfType(query.type)) return null;
    const scan = this.scan(query.type);
    const conditions = query.where ?? [];
    let matching: number[] | null = null;
    if (conditions.length > 0) {
      matching = [];
      for (let i = 0; i < scan.length; i++)
        if (conditions.every((c) => matches(scan.at(i), c))) matching.push(i);
    }
    const indexOf = (i: number) => (matching ? matching[i]! : i);
    const total = matching ? matching.length : scan.length;
    // a longer page of the same list asks again for twice as many (few passes for growing pages)
    const order = topOrder(
      total,
      (i) => scan.at(indexOf(i)),
      query.sort ?? [],
      Math.max(end, 2 * (known?.items.length ?? 0)),
    );
    if (!order) return null;
    known = { type: query.type, items: order.map((i) => scan.keep(indexOf(i))), total };
    this.topCache.set(key, known);
    return known;
  }

  /**
   * The sorted lists this source holds in full (those computed here, not patched since), as
   * positions in {@link itemsOfType} in shared memory: another source over the same snapshot
   * and environment takes them with {@link seedLists} instead of sorting again (the build's
   * planning sorts the lists of paginated routes; its render workers list the same).
   */
  sharedLists(): SharedList[] {
    const lists: SharedList[] = [];
    for (const entry of this.sortedCache.values()) {
      if (!entry.positions) continue;
      if (!(entry.positions.buffer instanceof SharedArrayBuffer)) {
        const shared = new Int32Array(new SharedArrayBuffer(entry.positions.byteLength));
        shared.set(entry.positions);
        entry.positions = shared;
      }
      lists.push({ type: entry.type, where: entry.conditions, sort: entry.sort, positions: entry.positions });
    }
    return lists;
  }

  /**
   * Takes sorted lists of {@link sharedLists} of a source over the same snapshot and environment
   * (their order is what this source would compute). A list whose positions do not fit this
   * source's items is left out (computed when asked).
   */
  seedLists(lists: readonly SharedList[]): void {
    for (const list of lists) {
      const key = JSON.stringify([list.type, list.where, list.sort]);
      if (this.sortedCache.has(key)) continue;
      const count = this.countOfType(list.type);
      if (list.positions.length > count) continue;
      let fits = true;
      for (const position of list.positions) if (position < 0 || position >= count) fits = false;
      if (!fits) continue;
      this.sortedCache.set(key, {
        type: list.type,
        conditions: list.where,
        sort: list.sort,
        compare: comparator(list.sort),
        items: null,
        positions: list.positions,
      });
    }
  }

  /** The edges leaving (`out`) or entering (`in`) an item (without a store). */
  edgesOf(id: string, direction: 'out' | 'in'): readonly SnapshotEdge[] {
    if (!this.edgesIndexed) this.indexEdges();
    return (direction === 'out' ? this.out : this.in).get(id) ?? [];
  }

  /**
   * The ids at the other end of the edges of label `edge` (`*`: any) leaving (`out`) or
   * entering (`in`) an item, in snapshot order, of edges whose both ends are visible items.
   * `visit` returning true stops the walk (a traversal with a limit reached: a tag's first 50
   * of 40,000 posts read 50 edges, not all).
   */
  private neighbours(
    id: string,
    edge: string,
    direction: 'out' | 'in',
    visit: (other: string) => boolean | undefined,
  ): boolean {
    const store = this.store;
    if (!store) {
      for (const found of this.edgesOf(id, direction))
        if ((edge === '*' || found.edge === edge) && visit(direction === 'out' ? found.to : found.from))
          return true;
      return false;
    }
    if (!this.lookup(id)) return false;
    const edges = store.edges(store.node(id), direction);
    const labels = store.labels;
    const changed = this.byId.size > 0;
    for (let i = 0; i < edges.nodes.length; i++) {
      if (edge !== '*' && labels[edges.labels[i]!] !== edge) continue;
      const other = edges.nodes[i]!;
      // while no item changed since the store was made, an id's node says whether it is visible
      if (changed) {
        const otherId = store.idAt(other);
        if (this.lookup(otherId) && visit(otherId)) return true;
      } else if (store.visible(other) && visit(store.idAt(other))) return true;
    }
    return false;
  }

  traverse(query: TraverseQuery): SnapshotItem[] {
    const depth = Math.min(Math.max(1, query.depth), 3);
    // over the shared store while no item changed since it was made: by node, no id read back
    if (this.store && this.byId.size === 0) return this.traverseStore(this.store, query, depth);
    const seen = new Set([query.from]);
    const result: SnapshotItem[] = [];
    let frontier = [query.from];
    // each neighbour in turn (out, then in), until the limit
    let next: string[] = [];
    const step = (target: string): boolean => {
      if (seen.has(target)) return false;
      seen.add(target);
      const item = this.lookup(target);
      if (!item) return false;
      result.push(item);
      next.push(target);
      return query.limit !== undefined && result.length >= query.limit;
    };
    for (let level = 0; level < depth && frontier.length > 0; level++) {
      next = [];
      for (const id of frontier) {
        if (query.direction !== 'in' && this.neighbours(id, query.edge, 'out', step)) return result;
        if (query.direction !== 'out' && this.neighbours(id, query.edge, 'in', step)) return result;
      }
      frontier = next;
    }
    return result;
  }

  /**
   * {@link traverse} over the shared store while no item changed since the store was made (an
   * id's node then says whether it is visible): the same walk by node — the same neighbours in
   * the same order, the same items — without reading each neighbour's id back from the store
   * and looking it up again (a traversal per `{% traverse %}`, several on every page).
   */
  private traverseStore(store: StoreReader, query: TraverseQuery, depth: number): SnapshotItem[] {
    const result: SnapshotItem[] = [];
    const start = store.node(query.from);
    if (!store.visible(start)) return result;
    const { edge, direction, limit } = query;
    const labels = store.labels;
    const seen = new Set<number>([start]);
    let frontier = [start];
    for (let level = 0; level < depth && frontier.length > 0; level++) {
      const next: number[] = [];
      for (const node of frontier) {
        for (let way = 0; way < 2; way++) {
          if (way === 0 ? direction === 'in' : direction === 'out') continue;
          const edges = store.edges(node, way === 0 ? 'out' : 'in');
          const others = edges.nodes;
          for (let i = 0; i < others.length; i++) {
            if (edge !== '*' && labels[edges.labels[i]!] !== edge) continue;
            const other = others[i]!;
            if (!store.visible(other) || seen.has(other)) continue;
            seen.add(other);
            result.push(store.item(other));
            next.push(other);
            if (limit !== undefined && result.length >= limit) return result;
          }
        }
      }
      frontier = next;
    }
    return result;
  }

  similar(query: SimilarQuery): SnapshotItem[] {
    const start = this.lookup(query.from);
    const vector = start?.embedding;
    if (!start || !vector || vector.length === 0) return [];
    const scored: Array<{ index: number; id: string; score: number }> = [];
    const scan = this.scan(start.type);
    for (let index = 0; index < scan.length; index++) {
      const item = scan.at(index);
      if (item.id === start.id || !item.embedding || item.embedding.length !== vector.length) continue;
      scored.push({ index, id: item.id, score: cosine(vector, item.embedding) });
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return scored.slice(0, Math.max(0, query.limit)).map((entry) => scan.keep(entry.index));
  }

  /** The graph as a saved query reads it: the visible items and the edges between them. */
  private queryReader(): GraphQueryReader<SnapshotItem> {
    return {
      type: (name) =>
        (this.data.types.find((type) => type.name === name) as QueryTypeInfo | undefined) ?? null,
      itemsOfType: (type) => this.itemsOfType(type),
      neighbours: (ids, edge, direction) => {
        const out = new Map<string, string[]>();
        for (const id of ids) {
          const next: string[] = [];
          this.neighbours(id, edge, direction, (other) => {
            next.push(other);
            return false;
          });
          if (next.length > 0) out.set(id, next);
        }
        return out;
      },
      items: (ids) => {
        const out = new Map<string, SnapshotItem>();
        for (const id of ids) {
          const item = this.lookup(id);
          if (item) out.set(id, item);
        }
        return out;
      },
    };
  }

  /**
   * Runs a saved query of the snapshot (core's evaluator, as the server's
   * `POST /api/queries/{name}/run` does) over the items visible here. Throws 404 `not_found`
   * for a name the snapshot has no query of, 400 `invalid_query_params` or `invalid_query`.
   */
  runQuery(run: SavedQueryRun): QueryResult<SnapshotItem> {
    const key = JSON.stringify([run.name, run.params ?? {}, run.limit ?? null, run.offset ?? null]);
    let result = this.queryCache.get(key);
    if (!result) {
      const saved = (this.data.queries ?? []).find((query) => query.name === run.name);
      if (!saved) throw TrellisError.of('not_found', { resource: `Saved query \`${run.name}\`` });
      const values = bindQueryParams({ name: run.name, params: saved.params, given: run.params });
      result = runGraphQuerySync({
        query: saved.query,
        values,
        reader: this.queryReader(),
        page: { limit: run.limit, offset: run.offset },
      });
      this.queryCache.set(key, result);
    }
    return result;
  }

  snapshot(): Snapshot {
    return this.data;
  }
}

/** Lists of a query of `{% list %}` asked with a limit no larger than this may be answered by {@link topItems}. */
const MAX_TOP = 1000;
/** ... when the type has more than this many times the items asked for (else a full sort, kept, is as cheap). */
const TOP_FACTOR = 4;

/** A sorted list as {@link SnapshotSource.sharedLists} gives it: positions in the type's visible items, in order. */
export interface SharedList {
  type: string;
  where: readonly WhereCondition[];
  sort: readonly string[];
  /** in a SharedArrayBuffer (each worker given it reads the same memory) */
  positions: Int32Array;
}

/** A list query's full result, and what it was computed with. */
interface SortedEntry {
  type: string;
  conditions: readonly WhereCondition[];
  sort: readonly string[];
  compare: (a: SnapshotItem, b: SnapshotItem) => number;
  /** the items in order; null while the list is held as `positions` only */
  items: SnapshotItem[] | null;
  /** the order as positions in the type's items, while they are those it was computed for */
  positions: Int32Array | null;
}

/** The first items of a list query (offset 0) and its total. */
interface TopEntry {
  type: string;
  items: SnapshotItem[];
  total: number;
}

/**
 * A sorted list with the items of `ids` taken out and their current versions (of the list's
 * type, matching its conditions) inserted at their sorted place; null when the comparator
 * cannot rank them strictly (sort again then).
 */
function patchSorted(
  entry: SortedEntry,
  ids: ReadonlySet<string>,
  byId: (id: string) => SnapshotItem | undefined,
): SnapshotItem[] | null {
  const items = entry.items!.filter((item) => !ids.has(item.id));
  const inserts: SnapshotItem[] = [];
  for (const id of ids) {
    const item = byId(id);
    if (item && item.type === entry.type && entry.conditions.every((c) => matches(item, c)))
      inserts.push(item);
  }
  return insertSorted(items, inserts, entry.compare) ? items : null;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
