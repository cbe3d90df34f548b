import { TrellisError } from '@trelliscms/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EngineError, type EngineErrorKind } from '../../engines/port';
import { errorsPlugin } from './errors';

let app: FastifyInstance;

/** A bare Fastify app with only the errors plugin and a few routes that fail on purpose. */
beforeEach(async () => {
  const fastify = Fastify({ logger: false, bodyLimit: 1024 }).withTypeProvider<ZodTypeProvider>();
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.setSerializerCompiler(serializerCompiler);
  await fastify.register(errorsPlugin);
  fastify.post(
    '/items/:id',
    {
      schema: {
        params: z.object({ id: z.string().regex(/^item:[a-z]+$/) }),
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(10).optional() }),
        body: z.object({ title: z.string().min(1), count: z.number().int() }),
      },
    },
    async () => ({ ok: true }),
  );
  fastify.get('/engine/:kind', async (request) => {
    const { kind } = request.params as { kind: EngineErrorKind };
    throw new EngineError(kind, `engine says ${kind}`, {
      resource: 'Movie',
      prop: 'slug',
      label: 'Movie',
      timeoutMs: 50,
    });
  });
  fastify.get('/trellis', async () => {
    throw TrellisError.of(
      'rate_limited',
      { retryAfter: 7 },
      { hint: 'slow down', headers: { 'retry-after': '7' }, extra: { limit: 10 } },
    );
  });
  fastify.get(
    '/bad-response',
    { schema: { response: { 200: z.object({ ok: z.boolean() }) } } },
    async () => ({
      ok: 'yes' as unknown as boolean,
    }),
  );
  fastify.get('/crash', async () => {
    throw new TypeError("Cannot read properties of undefined (reading 'secret')");
  });
  app = fastify;
  await app.ready();
});

afterEach(async () => {
  await app.close();
});

describe('the errors plugin', () => {
  it('renders schema failures of body, query and path as 400 validation_failed naming where', async () => {
    const body = await app.inject({
      method: 'POST',
      url: '/items/item:a',
      payload: { title: '', count: 1.5 },
    });
    expect(body.statusCode).toBe(400);
    expect(body.json().code).toBe('validation_failed');
    expect(body.json().error).toMatch(/body\.title/);
    const query = await app.inject({
      method: 'POST',
      url: '/items/item:a?limit=99',
      payload: { title: 'x', count: 1 },
    });
    expect(query.statusCode).toBe(400);
    expect(query.json().error).toMatch(/querystring\.limit/);
    const params = await app.inject({
      method: 'POST',
      url: '/items/nope',
      payload: { title: 'x', count: 1 },
    });
    expect(params.statusCode).toBe(400);
    expect(params.json().error).toMatch(/params\.id/);
  });

  it('renders an empty JSON body as 400 missing_body and a too-large one as 413', async () => {
    const empty = await app.inject({
      method: 'POST',
      url: '/items/item:a',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('missing_body');
    const large = await app.inject({
      method: 'POST',
      url: '/items/item:a',
      payload: { title: 'x'.repeat(5000), count: 1 },
    });
    expect(large.statusCode).toBe(413);
    expect(large.json().code).toBe('payload_too_large');
  });

  it('renders an unsupported content type as 4xx, not 5xx', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/items/item:a',
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'x',
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(typeof res.json().error).toBe('string');
  });

  it('maps engine errors to the statuses of docs/api-spec.md §7', async () => {
    const expected: Record<EngineErrorKind, [number, string]> = {
      not_found: [404, 'not_found'],
      exists: [409, 'conflict'],
      unique_violation: [409, 'unique_violation'],
      invalid_argument: [400, 'validation_failed'],
      timeout: [504, 'query_timeout'],
      unavailable: [502, 'engine_error'],
    };
    for (const [kind, [status, code]] of Object.entries(expected)) {
      const res = await app.inject({ method: 'GET', url: `/engine/${kind}` });
      expect(res.statusCode, kind).toBe(status);
      expect(res.json().code, kind).toBe(code);
    }
    const unavailable = await app.inject({ method: 'GET', url: '/engine/unavailable' });
    expect(unavailable.json().hint).toMatch(/health\/detail/);
    const unique = await app.inject({ method: 'GET', url: '/engine/unique_violation' });
    expect(unique.json().error).toMatch(/slug/);
  });

  it('renders a TrellisError with its status, hint, extras and headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/trellis' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.json()).toEqual({
      error: 'Too many requests: retry in 7 s.',
      code: 'rate_limited',
      hint: 'slow down',
      limit: 10,
    });
  });

  it('hides unexpected errors and response mismatches behind 500 internal_error', async () => {
    for (const url of ['/crash', '/bad-response']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(500);
      expect(res.json().code).toBe('internal_error');
      expect(res.body).not.toMatch(/secret|Cannot read|ZodError|"stack"|\.ts:\d+/);
    }
  });

  it('answers unknown routes with 404 route_not_found without the query string', async () => {
    const res = await app.inject({ method: 'GET', url: '/missing?token=abc' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: 'No route GET /missing. See GET /api/openapi.json.',
      code: 'route_not_found',
    });
  });
});
