import { LRUCache } from 'lru-cache';

/** Counters of the API-key cache (docs/api-spec.md §4 /metrics/apikey-cache and /health/detail). */
export interface ApiKeyCacheStats {
  hits: number;
  misses: number;
  evictions: number;
  invalidations: number;
  staleServed: number;
  size: number;
}

export interface ApiKeyCacheOptions {
  /** Most entries kept; the least recently used goes first. Default 10,000. */
  max?: number;
  /** How long an entry is fresh, in ms. Default 60 s: a key revoked on another instance stops working within it. */
  ttlMs?: number;
}

/**
 * An LRU cache with a time-to-live in front of the API-key lookups, with real counters.
 * Misses are not cached, so unknown keys cannot push real ones out. When the lookup behind
 * it fails (the engine is down), an expired entry is served instead and counted as
 * `staleServed`; a revoked key is removed at once with {@link invalidate}.
 */
export class ApiKeyCache<V extends object = object> {
  readonly #cache: LRUCache<string, V>;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #invalidations = 0;
  #staleServed = 0;
  /** Moved by {@link clear}: a lookup in flight across it is not stored (it may hold the old record). */
  #generation = 0;

  constructor(options: ApiKeyCacheOptions = {}) {
    this.#cache = new LRUCache<string, V>({
      max: options.max ?? 10_000,
      ttl: options.ttlMs ?? 60_000,
      allowStale: false,
      noDeleteOnStaleGet: true,
      updateAgeOnGet: false,
      dispose: (_value, _key, reason) => {
        if (reason === 'evict' || reason === 'expire') this.#evictions += 1;
      },
    });
  }

  /**
   * The entry for `key`: from the cache when fresh, else from `load` (and cached when found).
   * When `load` throws and an expired entry exists, that entry is served; otherwise the
   * error propagates.
   */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const fresh = this.#cache.get(key);
    if (fresh !== undefined) {
      this.#hits += 1;
      return fresh;
    }
    this.#misses += 1;
    const generation = this.#generation;
    let loaded: V | null;
    try {
      loaded = await load();
    } catch (error) {
      const stale = this.#cache.peek(key, { allowStale: true });
      if (stale !== undefined) {
        this.#staleServed += 1;
        return stale;
      }
      throw error;
    }
    if (loaded === null) this.#cache.delete(key);
    else if (generation === this.#generation) this.#cache.set(key, loaded);
    return loaded;
  }

  /**
   * Counts a lookup answered from the cache in front of this one (the auth hook's resolved
   * access, built from an entry of this cache), so the counters show every API-key check.
   */
  countHit(): void {
    this.#hits += 1;
  }

  /** Drops the entry for `key` (a revoked key must stop working at once). */
  invalidate(key: string): void {
    if (this.#cache.delete(key)) this.#invalidations += 1;
  }

  /**
   * Drops every entry (the access epoch moved: a key may have been revoked on another server),
   * and keeps out any lookup in flight meanwhile.
   */
  clear(): void {
    this.#generation += 1;
    this.#invalidations += this.#cache.size;
    this.#cache.clear();
  }

  /** The counters; `size` counts entries held, fresh or expired. */
  stats(): ApiKeyCacheStats {
    return {
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
      invalidations: this.#invalidations,
      staleServed: this.#staleServed,
      size: this.#cache.size,
    };
  }
}
