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
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
      if (reply.statusCode !== 200 || !request.url.startsWith('/api/')) return payload;
      let tag = reply.getHeader('etag');
      if (tag === undefined) {
        if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
        tag = bytesTag(payload);
        reply.header('ETag', tag);
      }
      const wanted = entityTags(request.headers['if-none-match']);
      if (wanted === '*' || wanted?.includes(String(tag).replace(/^W\//, ''))) {
        reply.code(304);
        reply.removeHeader('content-type');
        reply.removeHeader('content-length');
        return null;
      }
      return payload;
    });
  },
  { name: 'trellis-conditional-requests' },
);
