import { TrellisError } from '@trelliscms/core';
import type { Clock } from '../shared/clock';

/**
 * At most `perMinute` calls per site per minute (a fixed window starting at a site's first
 * call), counted in this process: past it, 429 `rate_limited` with `Retry-After` (the seconds
 * until the window ends).
 */
export class SiteRateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: { perMinute: number; clock: Clock; windowMs?: number }) {}

  /** Counts one call of `siteId`, or throws 429 when the site has used its calls of this window. */
  take(siteId: string): void {
    const windowMs = this.options.windowMs ?? 60_000;
    const now = this.options.clock.now().getTime();
    let window = this.#windows.get(siteId);
    if (!window || now - window.start >= windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(siteId, window);
      // Forget sites whose windows have ended, so the map stays as small as the active sites.
      if (this.#windows.size > 1000) {
        for (const [id, entry] of this.#windows) if (now - entry.start >= windowMs) this.#windows.delete(id);
      }
    }
    if (window.count >= this.options.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
      throw TrellisError.of(
        'rate_limited',
        { retryAfter },
        {
          headers: { 'retry-after': String(retryAfter) },
          hint: `This site has made its ${this.options.perMinute} AI calls of this minute (AI_RATE_LIMIT).`,
        },
      );
    }
    window.count += 1;
  }
}
