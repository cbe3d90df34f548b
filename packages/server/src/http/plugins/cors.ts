import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE_S = 600;

/** Response headers a browser page may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'X-Total-Count',
  'Idempotent-Replayed',
  'X-Request-Id',
];

/**
 * CORS for the origins the operator configures (`CMS_CORS_ORIGINS`), so a browser admin UI
 * on another origin can call the API; with none configured the plugin adds nothing (off).
 * Built on `@fastify/cors`, registered before rate limiting and authentication: a preflight
 * from an allowed origin is answered 204 at once (it carries no credential); an allowed
 * origin's requests get `Access-Control-Allow-Origin`, error answers included. A request from
 * any other origin gets no CORS header, and its preflight the 404 of an unknown route.
 * Credentials travel in `Authorization`, never in cookies, so `Allow-Credentials` is not sent.
 */
export const corsPlugin = fp(
  async (app: FastifyInstance, opts: { origins: readonly string[] }) => {
    if (opts.origins.length === 0) return;
    const allowed = new Set(opts.origins);
    // The preflight route of @fastify/cors: a preflight it did not answer (an origin not
    // allowed) falls through to it, and it answers 404 without asking for a credential.
    app.addHook('onRoute', (route) => {
      if (route.method === 'OPTIONS' && route.url === '*') {
        route.config = { ...route.config, public: true, siteScope: 'none' };
      }
    });
    await app.register(cors, {
      origin: allowed.has('*')
        ? '*'
        : (origin: string | undefined, callback: (error: Error | null, allow: boolean) => void) =>
            callback(null, origin !== undefined && allowed.has(origin)),
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: CORS_MAX_AGE_S,
      // No allowedHeaders: the requested ones are echoed (Authorization, X-Site-Id, If-Match,
      // Idempotency-Key and any added later); the origin is what is checked.
      credentials: false,
    });
  },
  { name: 'trellis-cors' },
);
