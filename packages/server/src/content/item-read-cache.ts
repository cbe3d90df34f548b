import { LRUCache } from 'lru-cache';
import type { NodeJsonWithEdges } from '../engines/port';

/** One item read as `GET /api/content/{type}/{id}` answers it. */
export interface CachedItemRead {
  /** The ContentRecord, serialized. */
  body: string;
  /** The item version (the ETag). */
  version: number;
}

export interface ItemReadCacheOptions {
  /**
   * How long an entry is served, in ms; 0 turns the cache off. A change made by another
   * server instance (or another process on the same embedded data directory) shows within it.
   */
  ttlMs: number;
  /** Most characters of bodies held (default 8 Mi); bodies over 1 Mi characters are never cached. */
  maxChars?: number;
}

/** One content list as `GET /api/content/{type}` answers it. */
export interface CachedListRead {
  /** The list (or its withMeta envelope), serialized. */
  body: string;
  /** Every match, independent of limit (`X-Total-Count`). */
  total: number;
  /** The body's ETag (a hash of its bytes), kept with it so a hit does not hash it again. */
  tag: string;
}

type Entry = { body: string; version: number; total: number; tag: string; generation: number };

/** An engine read of one item started for one request ahead of its access check. */
interface Prefetch {
  graphName: string;
  id: string;
  /** The graph's write generation when the read was asked for. */
  generation: number;
  read: Promise<NodeJsonWithEdges | null>;
}

/**
 * The answers of `GET /api/content/{type}/{id}` and of `GET /api/content/{type}` (by their
 * query), per site graph, for a short time.
 *
 * Correctness on this instance: every write to a graph through the app's engine calls
 * {@link graphWritten} before it starts and after it ends (plugins/write-notifying-graph.ts),
 * which retires every entry of that graph — item, edges, type definition, anything — and a
 * read that was in flight meanwhile is not stored. Other instances: an entry lives at most
 * `ttlMs`. Failed reads (404) are never cached.
 */
export class ItemReadCache {
  readonly #entries: LRUCache<string, Entry> | null;
  readonly #generations = new Map<string, number>();
  readonly #prefetched = new WeakMap<object, Prefetch>();

  constructor(options: ItemReadCacheOptions) {
    const maxChars = options.maxChars ?? 8 * 1024 * 1024;
    this.#entries =
      options.ttlMs > 0
        ? new LRUCache<string, Entry>({
            ttl: options.ttlMs,
            updateAgeOnGet: false,
            maxSize: maxChars,
            maxEntrySize: Math.min(maxChars, 1024 * 1024),
            sizeCalculation: (entry, key) => entry.body.length + key.length,
          })
        : null;
  }

  /** Retires every entry of the graph: called around each write to it. */
  graphWritten(graphName: string): void {
    this.#generations.set(graphName, (this.#generations.get(graphName) ?? 0) + 1);
  }

  /**
   * Starts `start()` — the engine read of item `id` with its edges — for `request`, unless the
   * cache holds the item's answer: a speculation made before the request's access check (a
   * route's `prefetch`, auth/types.ts), so that on Neo4j it shares the access-epoch read's
   * round trip. Nothing is served from it here: {@link takePrefetched} hands it to the
   * request's own read. A failed read is left for that read to handle.
   */
  prefetch(
    request: object,
    { graphName, typeName, id }: { graphName: string; typeName: string; id: string },
    start: () => Promise<NodeJsonWithEdges | null>,
  ): void {
    const generation = this.#generations.get(graphName) ?? 0;
    const hit = this.#entries?.peek(`${graphName}\u0000${typeName}\u0000${id}`);
    if (hit !== undefined && hit.generation === generation) return;
    const read = start();
    read.catch(() => undefined);
    this.#prefetched.set(request, { graphName, id, generation, read });
  }

  /**
   * The read {@link prefetch} started for `request`, once, if it is of item `id` of graph
   * `graphName` (the site its access check settled on) and no write to that graph through this
   * instance started or ended since it was asked for: then it sees every write that a read
   * asked now would see (it was sent after the request arrived, and after every write of this
   * instance to the graph that had ended). Else undefined: read afresh.
   */
  takePrefetched(
    request: object,
    graphName: string,
    id: string,
  ): Promise<NodeJsonWithEdges | null> | undefined {
    const prefetched = this.#prefetched.get(request);
    if (prefetched === undefined) return undefined;
    this.#prefetched.delete(request);
    if (
      prefetched.graphName !== graphName ||
      prefetched.id !== id ||
      (this.#generations.get(graphName) ?? 0) !== prefetched.generation
    ) {
      return undefined;
    }
    return prefetched.read;
  }

  /** The read of item `id` as type `typeName` in the graph: cached, else from `load` (then cached). */
  async read(
    key: { graphName: string; typeName: string; id: string },
    load: () => Promise<CachedItemRead>,
  ): Promise<CachedItemRead> {
    return this.peek(key) ?? this.load(key, load);
  }

  /**
   * The cached read of item `id`, or undefined (then {@link load} it): a hit costs no promise,
   * so the route answers it in the same turn. Always undefined when the cache is off.
   */
  peek({
    graphName,
    typeName,
    id,
  }: {
    graphName: string;
    typeName: string;
    id: string;
  }): CachedItemRead | undefined {
    const entries = this.#entries;
    if (entries === null) return undefined;
    const hit = entries.get(`${graphName}\u0000${typeName}\u0000${id}`);
    return hit !== undefined && hit.generation === (this.#generations.get(graphName) ?? 0) ? hit : undefined;
  }

  /**
   * Reads item `id` with `load` and keeps the read (unless the graph was written meanwhile, or
   * the cache is off): what {@link read} does after {@link peek} missed.
   */
  load(
    key: { graphName: string; typeName: string; id: string },
    load: () => Promise<CachedItemRead>,
  ): Promise<CachedItemRead> {
    const entries = this.#entries;
    // The cache off: the read itself, without a promise of its own around it.
    if (entries === null) return load();
    return this.#loadAndKeep(entries, key, load);
  }

  async #loadAndKeep(
    entries: LRUCache<string, Entry>,
    { graphName, typeName, id }: { graphName: string; typeName: string; id: string },
    load: () => Promise<CachedItemRead>,
  ): Promise<CachedItemRead> {
    const generation = this.#generations.get(graphName) ?? 0;
    const loaded = await load();
    if ((this.#generations.get(graphName) ?? 0) === generation) {
      entries.set(`${graphName}\u0000${typeName}\u0000${id}`, {
        body: loaded.body,
        version: loaded.version,
        total: 0,
        tag: '',
        generation,
      });
    }
    return loaded;
  }

  /**
   * The list of type `typeName` that `query` (the parsed query string, serialized in a fixed
   * order by the caller) asks for: cached, else from `load` (then cached). The same rules as
   * {@link read}: retired by any write to the graph through this instance.
   */
  async readList(
    { graphName, typeName, query }: { graphName: string; typeName: string; query: string },
    load: () => Promise<CachedListRead>,
  ): Promise<CachedListRead> {
    return this.#read(graphName, `${typeName}\u0000?${query}`, async () => ({
      ...(await load()),
      version: 0,
    }));
  }

  async #read(graphName: string, what: string, load: () => Promise<Omit<Entry, 'generation'>>) {
    const entries = this.#entries;
    if (entries === null) return load();
    const key = `${graphName}\u0000${what}`;
    const generation = this.#generations.get(graphName) ?? 0;
    const hit = entries.get(key);
    if (hit !== undefined && hit.generation === generation) return hit;
    const loaded = await load();
    if ((this.#generations.get(graphName) ?? 0) === generation) {
      entries.set(key, {
        body: loaded.body,
        version: loaded.version,
        total: loaded.total,
        tag: loaded.tag,
        generation,
      });
    }
    return loaded;
  }
}
