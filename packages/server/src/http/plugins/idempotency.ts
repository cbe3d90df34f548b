import { createHash } from 'node:crypto';
import { canonicalJson, TrellisError } from '@trelliscms/core';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import { actorOf } from '../../auth/actor';
import type { Graph } from '../../engines/port';
import {
  claimKey,
  completeKey,
  idempotencyRecordId,
  releaseKey,
  type StoredAnswer,
  sweepExpiredKeys,
} from '../../shared/idempotency-records';

/** The request header that makes a write safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The header a replayed answer carries. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a key is remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a request holds its key before a retry may run again (its server may have stopped
 * mid-request): longer than any request runs (a synchronous build included).
 */
export const IDEMPOTENCY_LEASE_MS = 10 * 60_000;

const WRITES = new Set(['POST', 'PUT', 'PATCH']);
const KEY = /^[\x21-\x7e]{1,255}$/;
/** The headers of an answer that a replay gives again. */
const KEPT_HEADERS = ['content-type', 'etag', 'location', 'x-total-count'];
/** Expired records are swept at most this often per graph (by each process). */
const SWEEP_EVERY_MS = 10 * 60_000;

interface Claimed {
  graph: Graph;
  id: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The key this write claimed (`Idempotency-Key`), to store its answer or release it. */
    idempotencyClaim: Claimed | null;
  }
}

/** A route option's hooks as a list (Fastify takes one function or a list). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** A hash of what makes two requests the same request: method, URL (with query) and parsed body. */
function fingerprintOf(request: FastifyRequest): string {
  const body = request.body === undefined ? null : request.body;
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(body)}`)
    .digest('base64url');
}

function isMultipart(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').startsWith('multipart/');
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  return reply.header(REPLAYED_HEADER, 'true').code(answer.status).send(answer.body);
}

/**
 * `Idempotency-Key` on writes (POST, PUT, PATCH under /api/), as two hooks of every route that
 * takes a write method:
 *
 * - before the handler, the key is claimed in the graph the request writes to (the site's, or
 *   the platform graph) for this caller (its API key or user) and scope (the site). A retry of
 *   the same request (method, URL, body) once the first answered gets that answer again,
 *   with `Idempotent-Replayed: true`, and writes nothing; the same key with another request
 *   is 422 `idempotency_key_reused`; a retry while the first still runs is 409
 *   `idempotency_key_in_progress` (retry shortly).
 * - when the answer goes out, a 2xx answer is stored with the key for
 *   {@link IDEMPOTENCY_TTL_MS}; any other answer releases the key, so a retry runs again.
 *
 * Keys are 1 to 255 visible ASCII characters (a UUID is typical); another key is 400.
 * Requests without the header are not touched. Multipart uploads ignore the key (media are
 * kept by content hash, so an upload is idempotent already).
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance, opts: { ttlMs?: number; leaseMs?: number } = {}) => {
    const ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
    const leaseMs = opts.leaseMs ?? IDEMPOTENCY_LEASE_MS;
    const lastSweep = new Map<string, number>();
    app.decorateRequest('idempotencyClaim', null);

    const sweep = (graph: Graph, now: Date) => {
      if (now.getTime() - (lastSweep.get(graph.name) ?? 0) < SWEEP_EVERY_MS) return;
      lastSweep.set(graph.name, now.getTime());
      sweepExpiredKeys(graph, { now }).catch((error: unknown) =>
        app.log.warn({ err: error, graph: graph.name }, 'sweeping expired idempotency keys failed'),
      );
    };

    /** Claims the request's key; true when the first answer was sent again (a replay). */
    const claim = async (
      request: FastifyRequest,
      reply: FastifyReply,
      header: string | string[],
    ): Promise<boolean> => {
      const principal = request.principal;
      if (!principal || isMultipart(request)) return false;
      const key = Array.isArray(header) ? header.join(',') : header;
      if (!KEY.test(key)) {
        throw TrellisError.of('validation_failed', {
          detail: 'header Idempotency-Key: must be 1 to 255 visible ASCII characters (e.g. a UUID)',
        });
      }
      const graph = request.site?.graph ?? app.trellis.platform;
      const id = idempotencyRecordId({
        scope: request.site?.id ?? 'platform',
        caller: actorOf(principal),
        key,
      });
      const now = app.trellis.clock.now();
      const claim = await claimKey(graph, { id, fingerprint: fingerprintOf(request), now, ttlMs, leaseMs });
      switch (claim.kind) {
        case 'claimed':
          request.idempotencyClaim = { graph, id };
          sweep(graph, now);
          return false;
        case 'replay':
          request.log.info({ status: claim.answer.status }, 'idempotent retry: the first answer again');
          replay(reply, claim.answer);
          return true;
        case 'mismatch':
          throw TrellisError.of('idempotency_key_reused');
        case 'in_progress':
          throw TrellisError.of('idempotency_key_in_progress', {}, { headers: { 'Retry-After': '1' } });
      }
    };
    // Callback hooks that return at once for requests without a key: an async hook would cost
    // each request a promise and a microtask. Added to the write routes only (see `onRoute`
    // below), so reads run neither.
    const claimHook: preHandlerHookHandler = (request, reply, done) => {
      const header = request.headers[IDEMPOTENCY_KEY_HEADER];
      if (header === undefined || !WRITES.has(request.method) || !request.url.startsWith('/api/')) {
        return done();
      }
      claim(request, reply, header).then(
        (replayed) => {
          // A replay was sent here: a callback hook that answered does not call done.
          if (!replayed) done();
        },
        (error: Error) => done(error),
      );
    };

    const store = async (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      claimed: Claimed,
    ) => {
      const body =
        typeof payload === 'string'
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : payload == null
              ? ''
              : null;
      try {
        if (reply.statusCode >= 200 && reply.statusCode < 300 && body !== null) {
          const headers: Record<string, string> = {};
          for (const name of KEPT_HEADERS) {
            const value = reply.getHeader(name);
            if (value !== undefined) headers[name] = String(value);
          }
          await completeKey(claimed.graph, {
            id: claimed.id,
            answer: { status: reply.statusCode, headers, body },
          });
        } else {
          await releaseKey(claimed.graph, claimed.id);
        }
      } catch (error) {
        request.log.error({ err: error }, 'storing the answer of an Idempotency-Key failed');
      }
    };
    const storeHook: onSendHookHandler = (request, reply, payload, done) => {
      const claimed = request.idempotencyClaim;
      if (!claimed) return done(null, payload);
      request.idempotencyClaim = null;
      store(request, reply, payload, claimed).then(() => done(null, payload));
    };
    // Route hooks of the routes that take a write method, first among their own hooks: in the
    // order the global hooks ran in (after every global hook, before the route's). Routes with
    // no write method (every read) run neither; unmatched requests have no principal, so the
    // hooks did nothing for them.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.some((method) => WRITES.has(method))) return;
      route.preHandler = [claimHook, ...hooksOf(route.preHandler)];
      route.onSend = [storeHook, ...hooksOf(route.onSend)];
    });
  },
  { name: 'trellis-idempotency', dependencies: ['trellis-auth'] },
);
