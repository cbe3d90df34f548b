import { createRequire } from 'node:module';
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

/** What @fastify/rate-limit's LocalStore counts per key: requests in the window, and the window's time left. */
interface WindowCount {
  current: number;
  ttl: number;
}

/** @fastify/rate-limit's in-memory store (store/LocalStore.js): a fixed window per key, in an LRU of `cache` keys. */
type LocalStore = {
  incr(
    key: string,
    done: (error: Error | null, count: WindowCount) => void,
    timeWindow: number,
    max: number,
  ): void;
};
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => LocalStore;

function rateLimited(seconds: number, hint?: string): TrellisError {
  return TrellisError.of(
    'rate_limited',
    { retryAfter: seconds },
    { headers: { 'retry-after': String(seconds) }, ...(hint ? { hint } : {}) },
  );
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
    // @fastify/rate-limit's own store (its defaults: no continued or exponential penalty, an
    // LRU of 5,000 keys), asked synchronously: its plugin's hook makes four promises per
    // request. Headers and the 429 are those its hook gives (global: false, our key and error).
    const store = new LocalStore(false, false, 5000);
    const max = Math.trunc(opts.max);
    const timeWindow = Math.trunc(opts.timeWindowMs);
    // LocalStore answers synchronously: one shared callback instead of a closure per request.
    // `counted` is cleared before each call, so a store that stopped answering synchronously
    // (another version of the library) is refused at start-up, not read as a stale count.
    let counted: WindowCount | null = null;
    const take = (_error: Error | null, count: WindowCount) => {
      counted = count;
    };
    store.incr('\u0000start-up probe', take, timeWindow, max);
    if (counted === null)
      throw new Error(
        "@fastify/rate-limit's LocalStore did not answer synchronously: this server needs the version in its lockfile",
      );
    const failures = new AuthFailureLimiter({ max: opts.maxAuthFailures, windowMs: opts.timeWindowMs });
    // A callback hook: an async wrapper would add a promise and a microtask to every request.
    app.addHook('onRequest', (request, reply, done) => {
      // Once per hook: Fastify builds `routeOptions` anew on every access. The route's config
      // carries its URL pattern (`url`, undefined when no route matched).
      const config = request.routeOptions.config;
      const url = config?.url;
      if (url === '/api/health') return done();
      // Only requests that authentication will check: a matched, non-public route, with a
      // credential unless the route takes none.
      const hash = requestCredential(request).hash;
      if (url !== undefined && !config.public && !(hash === null && config.credential === 'optional')) {
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
      counted = null;
      store.incr(rateLimitKey(request), take, timeWindow, max);
      if (counted === null) return done(new Error('the rate limit store did not answer'));
      const { current, ttl } = counted as WindowCount;
      const reset = Math.ceil(ttl / 1000);
      if (current <= max) {
        reply
          .header('x-ratelimit-limit', max)
          .header('x-ratelimit-remaining', Math.max(0, max - current))
          .header('x-ratelimit-reset', reset);
        return done();
      }
      reply
        .header('x-ratelimit-limit', max)
        .header('x-ratelimit-remaining', 0)
        .header('x-ratelimit-reset', reset)
        .header('retry-after', reset);
      done(rateLimited(Math.max(1, reset)));
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
