import rateLimit from '@fastify/rate-limit';
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
    await app.register(rateLimit, {
      global: false,
      max: opts.max,
      timeWindow: opts.timeWindowMs,
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) => rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
    const limit = app.rateLimit();
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
      limit.call(app, request, reply).then(
        () => done(),
        (error: Error) => done(error),
      );
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
