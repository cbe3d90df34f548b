import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client';
import { ApiError, isApiError } from './errors/api-error';
import { ConnectionError, isConnectionError } from './errors/connection-error';
import { isSchemaError, SchemaError } from './errors/schema-error';
import { createTestServer, sequence, type TestServer } from './test-support/create-test-server';

const site = {
  id: 'site:blog',
  name: 'Blog',
  slug: 'blog',
  graphName: '9b2f3c1e-0000-4000-8000-000000000001',
  publicUrl: null,
  description: '',
  mantra: '',
  theme: { primary: '#000', accent: '#fff' },
  searchEmission: 'bm25',
  createdAt: '2026-11-22T03:00:00.000Z',
};
const health = { status: 'ok', platformGraph: 'platform', lastBuildAt: null, lastBuildId: null };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Retries without waiting, so behaviour tests do not sleep. */
const fastRetry = { limit: 2, delayMs: () => 1 };

describe('createClient', () => {
  it('sends the API key, parses the answer and scopes site requests with X-Site-Id', async () => {
    server = await createTestServer({
      'GET /api/health': () => ({ body: health }),
      'GET /api/templates': () => ({ body: [{ name: 'page', content: '<h1>{{ title }}</h1>', version: 2 }] }),
    });
    const client = createClient({ baseUrl: server.url, apiKey: 'tk_secret_123' });
    expect(await client.health.get()).toEqual(health);
    const templates = await client.site('site:blog').templates.list();
    expect(templates[0]?.version).toBe(2);
    const [first, second] = server.requests;
    expect(first?.headers.authorization).toBe('Bearer tk_secret_123');
    expect(first?.headers['x-site-id']).toBeUndefined();
    expect(second?.headers['x-site-id']).toBe('site:blog');
  });

  it('asks the token provider before every request', async () => {
    server = await createTestServer({ 'GET /api/sites': () => ({ body: [site] }) });
    let calls = 0;
    const client = createClient({ baseUrl: server.url, token: async () => `id-token-${++calls}` });
    await client.sites.list();
    await client.sites.list();
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer id-token-1',
      'Bearer id-token-2',
    ]);
  });

  it('asks the token provider again before a retry, so a refreshed token is sent', async () => {
    server = await createTestServer({
      'GET /api/sites': sequence(
        { status: 503, body: { error: 'busy', code: 'overloaded' } },
        { body: [site] },
      ),
    });
    let calls = 0;
    const client = createClient({
      baseUrl: server.url,
      token: () => `t${++calls}`,
      retry: { delayMs: () => 1 },
    });
    await client.sites.list();
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer t1',
      'Bearer t2',
    ]);
  });

  it('encodes path segments such as full content ids', async () => {
    server = await createTestServer({
      'GET /api/content/post/post%3Aa%26b': () => ({
        body: { id: 'post:a&b', type: 'post', fields: { title: 'Hi' } },
      }),
    });
    const item = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .content.get('post', 'post:a&b');
    expect(item.fields.title).toBe('Hi');
  });

  it('rejects a baseUrl that is not http(s) and both credentials at once', () => {
    expect(() => createClient({ baseUrl: 'localhost:4000' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'http://x', apiKey: 'a', token: () => 'b' })).toThrow(/not both/);
  });
});

describe('errors', () => {
  it('turns an error answer into an ApiError with status, code, hint and body', async () => {
    server = await createTestServer({
      'GET /api/types/movie': () => ({
        status: 404,
        body: {
          error: 'Content type not found.',
          code: 'not_found',
          hint: 'GET /api/types lists them',
          extra: 1,
        },
      }),
    });
    const client = createClient({ baseUrl: server.url, apiKey: 'k' });
    const error = await client
      .site('site:blog')
      .types.get('movie')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 404,
      code: 'not_found',
      error: 'Content type not found.',
      hint: 'GET /api/types lists them',
      method: 'GET',
      body: { extra: 1 },
    });
    expect((error as ApiError).message).toContain('/api/types/movie failed with 404');
  });

  it('matches errors by name too, so copies of the SDK agree', () => {
    expect(isApiError({ name: 'ApiError', status: 400 })).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(isSchemaError({ name: 'SchemaError' })).toBe(true);
    expect(isConnectionError({ name: 'ConnectionError' })).toBe(true);
  });

  it('throws a SchemaError when a 2xx answer does not match the core schema', async () => {
    server = await createTestServer({ 'GET /api/sites/site%3Ablog': () => ({ body: { ...site, id: 42 } }) });
    const error = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .sites.get('site:blog')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).issues[0]?.path).toBe('id');
    expect((error as SchemaError).body).toMatchObject({ id: 42 });
  });

  it('gives a ConnectionError when nothing listens', async () => {
    server = await createTestServer({});
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await createClient({ baseUrl: url, retry: false })
      .health.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).isTimeout).toBe(false);
  });

  it('gives a ConnectionError with isTimeout when an attempt runs past timeoutMs', async () => {
    server = await createTestServer({
      'GET /api/health': () => new Promise((resolve) => setTimeout(() => resolve({ body: health }), 1000)),
    });
    const error = await createClient({ baseUrl: server.url, timeoutMs: 100, retry: false })
      .health.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).isTimeout).toBe(true);
  });
});

describe('retries', () => {
  it('retries a GET after a 503 and a 502', async () => {
    server = await createTestServer({
      'GET /api/sites': sequence(
        { status: 503, body: { error: 'busy', code: 'overloaded' } },
        { status: 502, body: { error: 'engine', code: 'engine_error' } },
        { body: [site] },
      ),
    });
    const sites = await createClient({ baseUrl: server.url, apiKey: 'k', retry: fastRetry }).sites.list();
    expect(sites).toHaveLength(1);
    expect(server.hits('GET /api/sites')).toHaveLength(3);
  });

  it('stops after the retry limit and throws the last error', async () => {
    server = await createTestServer({ 'GET /api/sites': () => ({ status: 503, body: { error: 'busy' } }) });
    const error = await createClient({
      baseUrl: server.url,
      apiKey: 'k',
      retry: { limit: 1, delayMs: () => 1 },
    })
      .sites.list()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 503 });
    expect(server.hits('GET /api/sites')).toHaveLength(2);
  });

  it('honours Retry-After on a 429, for writes too', async () => {
    server = await createTestServer({
      'POST /api/sites': sequence(
        { status: 429, body: { error: 'slow down', code: 'rate_limited' }, headers: { 'retry-after': '1' } },
        { status: 201, body: site },
      ),
    });
    const waits: unknown[] = [];
    const created = await createClient({
      baseUrl: server.url,
      apiKey: 'k',
      retry: fastRetry,
      onRetryWait: (wait) => waits.push(wait),
    }).sites.create({
      name: 'Blog',
    });
    expect(created.id).toBe('site:blog');
    // Told before the wait, so a person can see why nothing moves.
    expect(waits).toEqual([{ status: 429, method: 'POST', url: `${server.url}/api/sites`, waitMs: 1000 }]);
    const [first, second] = server.hits('POST /api/sites');
    expect(second).toBeDefined();
    // The 1 ms fallback delay is not used: the server asked for a second.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries a POST answered 500 partial_site_creation but not a plain 500', async () => {
    server = await createTestServer({
      'POST /api/sites': sequence(
        { status: 500, body: { error: 'partial', code: 'partial_site_creation' } },
        { status: 500, body: { error: 'boom', code: 'internal_error' } },
        { status: 201, body: site },
      ),
    });
    const error = await createClient({ baseUrl: server.url, apiKey: 'k', retry: fastRetry })
      .sites.create({ name: 'Blog' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect(server.hits('POST /api/sites')).toHaveLength(2);
  });

  it('retries a template write answered 502 template_write_not_visible, not other 502s', async () => {
    server = await createTestServer({
      'PUT /api/templates/page': sequence(
        { status: 502, body: { error: 'not visible', code: 'template_write_not_visible' } },
        { status: 502, body: { error: 'engine', code: 'engine_error', hint: 'check the engine' } },
      ),
    });
    const error = await createClient({ baseUrl: server.url, apiKey: 'k', retry: fastRetry })
      .site('site:blog')
      .templates.update('page', { content: 'x' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: 'engine_error', hint: 'check the engine' });
    expect(server.hits('PUT /api/templates/page')).toHaveLength(2);
  });

  it('never retries a write on a 4xx, a 504 or a lost answer', async () => {
    server = await createTestServer({
      'POST /api/content/post': () => ({ status: 504, body: { error: 'timeout', code: 'query_timeout' } }),
      'PATCH /api/content/post/post%3Aa': () => ({
        status: 409,
        body: { error: 'conflict', code: 'version_conflict' },
      }),
    });
    const content = createClient({ baseUrl: server.url, apiKey: 'k', retry: fastRetry }).site(
      'site:blog',
    ).content;
    await expect(content.create('post', { title: 'a' })).rejects.toMatchObject({ status: 504 });
    await expect(content.update('post', 'post:a', { title: 'b' })).rejects.toMatchObject({ status: 409 });
    expect(server.requests).toHaveLength(2);
  });

  it('sends If-Match and Idempotency-Key, and retries a keyed write with the same key', async () => {
    server = await createTestServer({
      'POST /api/content/post': sequence(
        { status: 504, body: { error: 'timeout', code: 'query_timeout' } },
        { status: 409, body: { error: 'running', code: 'idempotency_key_in_progress' } },
        { status: 201, body: { id: 'post:a', type: 'post', fields: {} } },
      ),
      'PATCH /api/content/post/post%3Aa': () => ({ body: { id: 'post:a', type: 'post', fields: {} } }),
    });
    const content = createClient({ baseUrl: server.url, apiKey: 'k', retry: fastRetry }).site(
      'site:blog',
    ).content;
    await content.create('post', { title: 'a' }, { idempotencyKey: 'create-a' });
    const keys = server.hits('POST /api/content/post').map((hit) => hit.headers['idempotency-key']);
    expect(keys).toEqual(['create-a', 'create-a', 'create-a']);
    await content.update('post', 'post:a', { title: 'b' }, { ifMatch: '"3"', idempotencyKey: true });
    const [patch] = server.hits('PATCH /api/content/post/post%3Aa');
    expect(patch?.headers['if-match']).toBe('"3"');
    expect(patch?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends nothing again when retry is false', async () => {
    server = await createTestServer({ 'GET /api/sites': () => ({ status: 503, body: { error: 'busy' } }) });
    await expect(createClient({ baseUrl: server.url, retry: false }).sites.list()).rejects.toMatchObject({
      status: 503,
    });
    expect(server.requests).toHaveLength(1);
  });
});
