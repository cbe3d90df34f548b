import { LRUCache } from 'lru-cache';

export interface FixedWindowLimiterOptions {
  /** Hits a key may make per window; the next one is refused until the window ends. */
  max: number;
  windowMs: number;
  /** Milliseconds on a monotonic clock (default `performance.now`); tests pass their own. */
  now?: () => number;
  /** Most keys remembered; the least recently seen go first. Default 50,000. */
  capacity?: number;
}

/**
 * Counts hits per key (a client address, a reporter) in fixed windows from the key's first hit:
 * the limit of a feature that wants its own budget besides the server-wide rate limit (leads,
 * bug reports).
 */
export class FixedWindowLimiter {
  private readonly windows: LRUCache<string, { count: number; resetAt: number }>;
  private readonly now: () => number;

  constructor(private readonly options: FixedWindowLimiterOptions) {
    this.windows = new LRUCache({ max: options.capacity ?? 50_000 });
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Counts one hit of `key`: null when it is within the limit, else the milliseconds until its
   * window ends (the hit is refused and not counted).
   */
  hit(key: string): number | null {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + this.options.windowMs });
      return null;
    }
    if (window.count >= this.options.max) return window.resetAt - now;
    window.count += 1;
    return null;
  }
}
