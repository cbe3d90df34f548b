import rateLimit from '@fastify/rate-limit';
import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

/**
 * 429 with `Retry-After` past `max` requests per `timeWindowMs` per {@link rateLimitKey}.
 * Runs as a global `onRequest` hook registered before authentication, so floods of bad
 * credentials are limited too. `/api/health` stays reachable for probes.
 */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, opts: { max: number; timeWindowMs: number }) => {
    await app.register(rateLimit, {
      global: false,
      max: opts.max,
      timeWindow: opts.timeWindowMs,
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        return TrellisError.of(
          'rate_limited',
          { retryAfter: seconds },
          { headers: { 'retry-after': String(seconds) } },
        );
      },
    });
    const limit = app.rateLimit();
    // A callback hook: an async wrapper would add a promise and a microtask to every request.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.url === '/api/health') return done();
      limit.call(app, request, reply).then(
        () => done(),
        (error: Error) => done(error),
      );
    });
  },
  { name: 'trellis-rate-limit' },
);
