import { LRUCache } from 'lru-cache';
import type { Graph } from '../engines/port';
import { getMembership, type Membership } from '../platform/members';
import { getSite, type SiteRecord } from '../platform/sites';
import { getUser, type PlatformUser } from '../platform/users';
import { type Clock, systemClock } from '../shared/clock';
import type { Principal, SiteContext } from './types';

export interface PlatformAccessCacheOptions {
  /** What an API key's `expiresAt` is compared with (default: the system clock). */
  clock?: Clock;
  /** Most entries kept; the least recently used goes first. Default 10,000. */
  max?: number;
  /**
   * How long an entry is used, in ms; 0 turns the cache off. Default
   * {@link PLATFORM_ACCESS_CACHE_TTL_MS}: a change made by another server instance (a removed
   * member, a demoted user, a deleted site) shows here within it. This instance's own
   * platform writes show at once.
   */
  ttlMs?: number;
}

/** The default time-to-live of the platform access cache: 5 s. */
export const PLATFORM_ACCESS_CACHE_TTL_MS = 5_000;

type Entry = { value: object; generation: number };

/**
 * What the auth hook resolved for one credential and site — the principal and the site
 * context with the caller's role — so the next request with the same credential and site
 * needs no engine read and no await. It is built from the key, user, site and membership read
 * through this cache and lives no longer than they would (the same TTL, and the same
 * invalidation by every platform write: revoking a key, changing a member, deleting a site).
 */
export interface ResolvedAccess {
  principal: Principal;
  site: SiteContext | null;
  /** When the API key expires (ms since the epoch), checked on every use; null = never. */
  keyExpiresAtMs: number | null;
}

/**
 * The platform reads every authenticated request makes — the caller's user, the site of
 * `X-Site-Id` and the caller's membership there — kept for a few seconds so a request does
 * not pay three engine reads before its own work.
 *
 * Correctness on this instance: {@link invalidateAll} runs before and after every write to
 * the platform graph (see `writeNotifyingGraph`), and a read that was in flight while a write
 * ran is not stored (it may hold the old value). Other instances: an entry lives at most
 * `ttlMs`. Only found values are cached, so a site, user or membership created elsewhere
 * is usable here at once.
 */
export class PlatformAccessCache {
  readonly #entries: LRUCache<string, Entry> | null;
  #generation = 0;
  readonly #clock: Clock;

  constructor(options: PlatformAccessCacheOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    const ttl = options.ttlMs ?? PLATFORM_ACCESS_CACHE_TTL_MS;
    this.#entries =
      ttl > 0
        ? new LRUCache<string, Entry>({ max: options.max ?? 10_000, ttl, updateAgeOnGet: false })
        : null;
  }

  /** Forgets every entry, and any read in flight: called around each platform write. */
  invalidateAll(): void {
    this.#generation += 1;
    this.#entries?.clear();
  }

  async #get<V extends object>(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (this.#entries === null) return load();
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.generation === this.#generation) return hit.value as V;
    const generation = this.#generation;
    const value = await load();
    if (value !== null && generation === this.#generation) {
      this.#entries.set(key, { value: Object.freeze(value), generation });
    }
    return value;
  }

  /** Pass to {@link rememberAccess}: a resolution that overlapped a platform write is not kept. */
  get generation(): number {
    return this.#generation;
  }

  /** The access resolved for `key` (credential hash and site) by an earlier request, if still valid. */
  resolvedAccess(key: string): ResolvedAccess | undefined {
    if (this.#entries === null) return undefined;
    const hit = this.#entries.get(`access\u0000${key}`);
    if (hit === undefined || hit.generation !== this.#generation) return undefined;
    const access = hit.value as ResolvedAccess;
    if (access.keyExpiresAtMs !== null && access.keyExpiresAtMs <= this.#clock.now().getTime())
      return undefined;
    return access;
  }

  /** Keeps what the auth hook resolved for `key`, unless a platform write ran since `generation`. */
  rememberAccess(key: string, access: ResolvedAccess, generation: number): void {
    if (this.#entries === null || generation !== this.#generation) return;
    Object.freeze(access.principal);
    if (access.site) Object.freeze(access.site);
    this.#entries.set(`access\u0000${key}`, { value: Object.freeze(access), generation });
  }

  /** The platform user `id` (as `getUser`), or null. */
  user(platform: Graph, id: string): Promise<PlatformUser | null> {
    return this.#get(`user\u0000${id}`, () => getUser(platform, id));
  }

  /** The live site `id` (as `getSite`), or null. */
  site(platform: Graph, id: string): Promise<SiteRecord | null> {
    return this.#get(`site\u0000${id}`, () => getSite(platform, id));
  }

  /** The user's membership of the site (as `getMembership`), or null. */
  membership(platform: Graph, query: { userId: string; siteId: string }): Promise<Membership | null> {
    return this.#get(`member\u0000${query.userId}\u0000${query.siteId}`, () =>
      getMembership(platform, query),
    );
  }
}
