import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AuthFailureLimiter } from '../../auth/auth-failure-limiter';
import { requestCredential } from '../../auth/request-credential';

/**
 * The rate-limit bucket of a request: the client address (`request.ip`, which honours
 * `X-Forwarded-For` only from proxies listed in `TRUST_PROXY`) plus a short hash of the
 * bearer credential. Never a body field, never an untrusted header; the credential itself
 * never becomes a key (or a log line).
 */
export function rateLimitKey(request: FastifyRequest): string {
  // The same hash authentication looks the key up by: computed once per request.
  const credential = requestCredential(request).hash;
  return `${request.ip}|${credential === null ? '-' : credential.slice(0, 16)}`;
}

function rateLimited(seconds: number, hint?: string): TrellisError {
  return TrellisError.of(
    'rate_limited',
    { retryAfter: seconds },
    { headers: { 'retry-after': String(seconds) }, ...(hint ? { hint } : {}) },
  );
}

/** One bucket's window: requests counted since it started. */
interface Window {
  count: number;
  startedAt: number;
}

/**
 * Fixed windows per key, the most recently used `maxKeys` kept (least recently used dropped
 * first): a window starts at a key's first request and lasts `windowMs`. The rules of
 * `@fastify/rate-limit`'s local store, without its promises: it runs on every request.
 */
export class FixedWindowLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly maxKeys = 5000,
  ) {}

  /** Counts a request of `key`: how many its window has seen (this one included) and the ms left of it. */
  hit(key: string, now = Date.now()): { count: number; ttlMs: number } {
    const windows = this.#windows;
    let window = windows.get(key);
    if (window === undefined || window.startedAt + this.windowMs <= now) {
      window = { count: 0, startedAt: now };
    } else {
      windows.delete(key); // re-inserted below: the most recently used come last
    }
    window.count += 1;
    windows.set(key, window);
    if (windows.size > this.maxKeys) windows.delete(windows.keys().next().value as string);
    return { count: window.count, ttlMs: window.startedAt + this.windowMs - now };
  }

  /** Whether a count is past the limit. */
  exceeded(count: number): boolean {
    return count > this.max;
  }
}

/**
 * Two limits, as global `onRequest` hooks registered before authentication; `/api/health`
 * stays reachable for probes:
 * - 429 with `Retry-After` past `max` requests per `timeWindowMs` per {@link rateLimitKey};
 * - 429 with `Retry-After` for a client address with `maxAuthFailures` failed
 *   authentications (401s) in `timeWindowMs` (auth/auth-failure-limiter.ts): a flood of bad
 *   credentials is limited even when every request sends a new one. Requests with a
 *   credential that authenticated recently still pass.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: { max: number; timeWindowMs: number; maxAuthFailures: number }) => {
    const limiter = new FixedWindowLimiter(opts.max, opts.timeWindowMs);
    const failures = new AuthFailureLimiter({ max: opts.maxAuthFailures, windowMs: opts.timeWindowMs });
    // A callback hook: an async wrapper would add a promise and a microtask to every request.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.url === '/api/health') return done();
      const { config } = request.routeOptions;
      // Only requests that authentication will check: a matched, non-public route, with a
      // credential unless the route takes none.
      const hash = requestCredential(request).hash;
      if (
        request.routeOptions.url !== undefined &&
        !config.public &&
        !(hash === null && config.credential === 'optional')
      ) {
        const blockedMs = failures.blockedFor(request.ip, hash);
        if (blockedMs !== null) {
          return done(
            rateLimited(
              Math.max(1, Math.ceil(blockedMs / 1000)),
              'Too many failed authentications from this address; check the credential before retrying.',
            ),
          );
        }
      }
      // The headers `@fastify/rate-limit` sent: the limit, what is left, when the window ends (s).
      const { count, ttlMs } = limiter.hit(rateLimitKey(request));
      const resetSeconds = Math.ceil(ttlMs / 1000);
      reply.header('x-ratelimit-limit', opts.max);
      if (!limiter.exceeded(count)) {
        reply.header('x-ratelimit-remaining', opts.max - count);
        reply.header('x-ratelimit-reset', resetSeconds);
        return done();
      }
      reply.header('x-ratelimit-remaining', 0);
      reply.header('x-ratelimit-reset', resetSeconds);
      done(rateLimited(Math.max(1, resetSeconds)));
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode === 401) failures.recordFailure(request.ip);
      else if (request.principal) {
        const hash = requestCredential(request).hash;
        if (hash !== null) failures.recordSuccess(hash);
      }
      done();
    });
  },
  { name: 'trellis-rate-limit' },
);
