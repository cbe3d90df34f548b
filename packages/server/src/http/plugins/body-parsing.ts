import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { describeJsonShapeProblem, findJsonShapeProblem, type JsonShapeLimits } from '../json-shape';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A bulk route (the imports): its body may be up to `IMPORT_BODY_LIMIT_BYTES` (other
     * routes: `BODY_LIMIT_BYTES`) and its arrays have no item limit of their own (the route
     * answers a helpful 413 past its record limit).
     */
    isBulkBody?: boolean;
    /** The route reads its body's JSON text too ({@link bulkBodySource}; with `isBulkBody`). */
    keepsBodySource?: boolean;
  }
}

/**
 * The shape limits of JSON bodies on every route. One object may hold 10,000 keys (a content
 * type's fields, a locale's translations); a string 1 Mi characters (a template holds at most
 * 1,000,000).
 */
export const JSON_LIMITS: JsonShapeLimits = {
  maxDepth: 64,
  maxKeys: 10_000,
  maxArrayItems: 100_000,
  maxStringLength: 1024 * 1024,
};

/** The limits of bulk routes: arrays as long as the body allows. */
export const BULK_JSON_LIMITS: JsonShapeLimits = { ...JSON_LIMITS, maxArrayItems: Number.POSITIVE_INFINITY };

/** The JSON text of the bodies of routes with `keepsBodySource`, by request (see {@link bulkBodySource}). */
const bulkSources = new WeakMap<FastifyRequest, string>();

/**
 * The JSON text a `keepsBodySource` route's body was parsed from (undefined on other routes), handed over
 * once: the import gives it to its preparing thread (content/import-pipeline.ts), which parses
 * it again there instead of this thread copying the records over.
 */
export function bulkBodySource(request: FastifyRequest): string | undefined {
  const source = bulkSources.get(request);
  bulkSources.delete(request);
  return source;
}

/** The Content-Encoding of a request with a body, when it is not `identity`; else null. */
function bodyEncoding(request: FastifyRequest): string | null {
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined || /^\s*(identity)?\s*$/i.test(encoding)) return null;
  const hasBody =
    request.headers['transfer-encoding'] !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
  return hasBody ? encoding : null;
}

/**
 * How request bodies are read, on every route:
 * - a body with a `Content-Encoding` (gzip, br, …) is answered 415 `unsupported_content_encoding`
 *   naming it, before it is read (the server reads plain bodies only);
 * - JSON bodies are scanned for their shape before `JSON.parse` ({@link JSON_LIMITS}) and
 *   refused with 400 `json_too_complex` past a limit, so a million-key object costs a scan of
 *   its first keys, not seconds of event loop; then parsed as Fastify does (prototype
 *   poisoning refused);
 * - routes with `config.isBulkBody` get `importBodyLimit` as their body limit (others keep the
 *   app's `BODY_LIMIT_BYTES`) and {@link BULK_JSON_LIMITS}.
 */
export const bodyParsingPlugin = fp(
  async (app: FastifyInstance, opts: { importBodyLimit: number }) => {
    app.addHook('onRoute', (route) => {
      if (route.config?.isBulkBody && route.bodyLimit === undefined) route.bodyLimit = opts.importBodyLimit;
    });

    app.addHook('preParsing', (request, _reply, payload, done) => {
      const encoding = bodyEncoding(request);
      if (encoding === null) return done(null, payload);
      done(
        TrellisError.of(
          'unsupported_content_encoding',
          { encoding: encoding.slice(0, 64) },
          { headers: { 'accept-encoding': 'identity' } },
        ),
      );
    });

    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const limits = request.routeOptions.config?.isBulkBody ? BULK_JSON_LIMITS : JSON_LIMITS;
      const problem = findJsonShapeProblem(body as string, limits);
      if (problem !== null) {
        return done(
          TrellisError.of('json_too_complex', { detail: describeJsonShapeProblem(problem) }),
          undefined,
        );
      }
      if (request.routeOptions.config?.keepsBodySource) bulkSources.set(request, body as string);
      parseJson(request, body as string, done);
    });
  },
  { name: 'trellis-body-parsing' },
);
