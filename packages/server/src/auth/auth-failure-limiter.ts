import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

export interface AuthFailureLimiterOptions {
  /** Failed authentications a client may have per window; past it, it is blocked until the window ends. */
  max: number;
  windowMs: number;
  /** Milliseconds on a monotonic clock (default `performance.now`); tests pass their own. */
  now?: () => number;
  /** Most clients (and good credentials) remembered; the least recently seen go first. Default 50,000. */
  capacity?: number;
}

/**
 * The client a failure counts against: its address, or for IPv6 its /64 (one subscriber
 * commonly holds a whole /64, so rotating through it would otherwise open new buckets).
 */
export function clientBucket(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  try {
    const parsed = ipaddr.IPv6.parse(ip);
    if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
    return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toNormalizedString()}/64`).toString()}/64`;
  } catch {
    return ip;
  }
}

/**
 * Counts failed authentications per client address (fixed windows from a client's first
 * failure), so a flood of bad credentials is limited whatever credential each request sends —
 * the per-credential rate limit alone never sees a rotating key twice. A blocked client is
 * still let through with a credential that authenticated recently (from anywhere): a good key
 * behind a shared address keeps working, and guessing one is no easier for it.
 */
export class AuthFailureLimiter {
  private readonly failures: LRUCache<string, { count: number; resetAt: number }>;
  private readonly good: LRUCache<string, true>;
  private readonly now: () => number;

  constructor(private readonly options: AuthFailureLimiterOptions) {
    this.now = options.now ?? (() => performance.now());
    const capacity = options.capacity ?? 50_000;
    this.failures = new LRUCache({ max: capacity });
    this.good = new LRUCache({ max: capacity, ttl: options.windowMs, ttlAutopurge: false });
  }

  /**
   * How many ms until `ip` may try again when it is blocked and `credentialHash` is not a
   * recently good credential; null when the request may go on to authentication.
   */
  blockedFor(ip: string, credentialHash: string | null): number | null {
    const entry = this.failures.get(clientBucket(ip));
    if (entry === undefined) return null;
    const left = entry.resetAt - this.now();
    if (left <= 0 || entry.count < this.options.max) return null;
    if (credentialHash !== null && this.good.has(credentialHash)) return null;
    return left;
  }

  /** Counts one failed authentication (a 401) of `ip`. */
  recordFailure(ip: string): void {
    const key = clientBucket(ip);
    const now = this.now();
    const entry = this.failures.get(key);
    if (entry === undefined || entry.resetAt <= now) {
      this.failures.set(key, { count: 1, resetAt: now + this.options.windowMs });
    } else {
      entry.count += 1;
    }
  }

  /** Remembers a credential (by its hash) that authenticated, for {@link blockedFor}. */
  recordSuccess(credentialHash: string): void {
    this.good.set(credentialHash, true);
  }
}
