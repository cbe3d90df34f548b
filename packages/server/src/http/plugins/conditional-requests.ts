import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { bytesTag } from '../../shared/entity-tag';
import { entityTags } from '../etag';

/**
 * Conditional reads for every API resource (RFC 9110 §13): a `GET` (or `HEAD`) answered 200
 * carries an `ETag` — the one the route set (a version, or the hash of the resource's stored
 * state, which `If-Match` on its update checks), else a hash of the body — and when the
 * request's `If-None-Match` names that tag (or is `*`) the answer is 304 Not Modified without a
 * body. Writes check `If-Match` in their own transactions (`shared/entity-tag.ts`).
 */
export const conditionalRequestsPlugin = fp(
  async (app: FastifyInstance) => {
    // A callback hook: it runs on every answer, and an async one would cost each a promise.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return done(null, payload);
      if (reply.statusCode !== 200 || !request.url.startsWith('/api/')) return done(null, payload);
      let tag = reply.getHeader('etag');
      if (tag === undefined) {
        if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
        tag = bytesTag(payload);
        reply.header('ETag', tag);
      }
      const wanted = entityTags(request.headers['if-none-match']);
      if (wanted === '*' || wanted?.includes(String(tag).replace(/^W\//, ''))) {
        reply.code(304);
        reply.removeHeader('content-type');
        reply.removeHeader('content-length');
        return done(null, null);
      }
      done(null, payload);
    });
  },
  { name: 'trellis-conditional-requests' },
);
