import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client';
import type { ImportProgress } from './namespaces/import';
import { createTestServer, sequence, type TestServer } from './test-support/create-test-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const item = (n: number) => ({ id: `post:p${n}`, type: 'post', fields: { title: `P${n}` } });

function importAnswer(records: unknown[], failedIndexes: number[] = []) {
  return {
    ok: failedIndexes.length === 0,
    totalRecords: records.length,
    created: records.length - failedIndexes.length,
    failed: failedIndexes.length,
    batches: 1,
    tookMs: 5,
    recordsPerSec: 100,
    errors: failedIndexes.map((index) => ({ index, id: `post:r${index}`, error: 'title is required' })),
    gatewayTimeoutWarning: null,
  };
}

describe('import.records', () => {
  it('splits records into calls and follows a 413 suggestedBatchSize', async () => {
    server = await createTestServer({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        if (records.length > 3) {
          return {
            status: 413,
            body: {
              error: 'too many',
              code: 'too_many_records',
              suggestedBatchSize: 3,
              suggestedCallCount: Math.ceil(records.length / 3),
            },
          };
        }
        // The second record of every call fails.
        return { body: importAnswer(records, records.length > 1 ? [1] : []) };
      },
    });
    const records = Array.from({ length: 10 }, (_, n) => ({ slug: `r${n}`, title: `R${n}` }));
    const progress: ImportProgress[] = [];
    const result = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.records({ typeName: 'post', records, callSize: 8, onProgress: (p) => progress.push(p) });

    const sizes = server.requests.map((request) => (request.body as { records: unknown[] }).records.length);
    expect(sizes).toEqual([8, 3, 3, 3, 1]);
    expect(
      server.requests.every((request) => (request.body as { typeName: string }).typeName === 'post'),
    ).toBe(true);
    expect(result).toMatchObject({ totalRecords: 10, created: 7, failed: 3, calls: 4, ok: false });
    // Error indexes point into the whole input, not into each call.
    expect(result.errors.map((error) => error.index)).toEqual([1, 4, 7]);
    expect(progress.map((p) => [p.done, p.created, p.failed])).toEqual([
      [3, 2, 1],
      [6, 4, 2],
      [9, 6, 3],
      [10, 7, 3],
    ]);
  });

  it('halves a call when a 413 suggests nothing smaller, and gives up at one record', async () => {
    server = await createTestServer({
      'POST /api/import/json': () => ({ status: 413, body: { error: 'too big', code: 'payload_too_large' } }),
    });
    const error = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.records({ typeName: 'post', records: [{ a: 1 }, { a: 2 }, { a: 3 }, { a: 4 }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiError', status: 413 });
    const sizes = server.requests.map((request) => (request.body as { records: unknown[] }).records.length);
    expect(sizes).toEqual([4, 2, 1]);
  });

  it('shrinks later calls when an answer carries a gateway-timeout warning', async () => {
    server = await createTestServer({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        return {
          body: {
            ...importAnswer(records),
            gatewayTimeoutWarning: { message: 'slow', suggestedBatchSize: 2, suggestedCallCount: 3 },
          },
        };
      },
    });
    const records = Array.from({ length: 9 }, (_, n) => ({ n }));
    const result = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.records({ typeName: 'post', records, callSize: 5 });
    const sizes = server.requests.map((request) => (request.body as { records: unknown[] }).records.length);
    expect(sizes).toEqual([5, 2, 2]);
    expect(result.created).toBe(9);
  });

  it('sends publish and sums created, updated, unchanged and published over the calls', async () => {
    server = await createTestServer({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        return {
          body: {
            ...importAnswer(records),
            created: 1,
            updated: records.length - 2,
            unchanged: 1,
            published: { envId: 'env:prod', count: records.length - 1 },
          },
        };
      },
    });
    const records = Array.from({ length: 7 }, (_, n) => ({ n }));
    const result = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.records({ typeName: 'post', records, callSize: 4, publish: 'prod' });
    expect(server.requests.map((request) => (request.body as { publish?: string }).publish)).toEqual([
      'prod',
      'prod',
    ]);
    expect(result).toMatchObject({
      created: 2,
      updated: 3,
      unchanged: 2,
      published: { envId: 'env:prod', count: 5 },
    });
  });

  it('removes edges in one request', async () => {
    server = await createTestServer({
      'POST /api/import/edges/remove': ({ body }) => {
        const { edges } = body as { edges: unknown[] };
        return {
          body: {
            ok: true,
            totalEdges: edges.length,
            removed: edges.length - 1,
            missing: 1,
            failed: 0,
            batches: 1,
            tookMs: 1,
            errors: [],
          },
        };
      },
    });
    const edges = [
      { from: 'post:p1', edge: 'LINKS_TO', to: 'post:p0' },
      { from: 'post:p2', edge: 'LINKS_TO', to: 'post:p0' },
    ];
    const result = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.removeEdges({ edges, batchSize: 100 });
    expect(result).toMatchObject({ removed: 1, missing: 1 });
    expect(server.requests[0]?.body).toEqual({ edges, batchSize: 100 });
  });

  it('imports edges in calls and sums merged and mismatch', async () => {
    server = await createTestServer({
      'POST /api/import/edges': ({ body }) => {
        const { edges } = body as { edges: unknown[] };
        return {
          body: {
            ok: true,
            totalEdges: edges.length,
            merged: edges.length - 1,
            mismatch: 1,
            failed: 0,
            batches: 1,
            tookMs: 1,
            edgesPerSec: 1000,
            errors: [],
          },
        };
      },
    });
    const edges = Array.from({ length: 5 }, (_, n) => ({
      from: `post:p${n}`,
      edge: 'LINKS_TO',
      to: 'post:p0',
    }));
    const result = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .import.allEdges({ edges, callSize: 2 });
    expect(result).toMatchObject({ totalEdges: 5, merged: 2, mismatch: 3, calls: 3 });
  });
});

describe('content.iterate', () => {
  it('pages through a list with withMeta, limit and offset', async () => {
    const all = Array.from({ length: 7 }, (_, n) => item(n));
    server = await createTestServer({
      'GET /api/content/post': ({ url }) => {
        const query = new URL(url, 'http://x').searchParams;
        const limit = Number(query.get('limit'));
        const offset = Number(query.get('offset'));
        expect(query.get('withMeta')).toBe('1');
        expect(query.get('status')).toBe('published');
        return { body: { items: all.slice(offset, offset + limit), total: all.length, limit, offset } };
      },
    });
    const seen: string[] = [];
    const content = createClient({ baseUrl: server.url, apiKey: 'k' }).site('site:blog').content;
    for await (const record of content.iterate('post', { pageSize: 3, status: 'published' }))
      seen.push(record.id);
    expect(seen).toEqual(all.map((record) => record.id));
    expect(
      server.requests.map((request) => new URL(request.url, 'http://x').searchParams.get('offset')),
    ).toEqual(['0', '3', '6']);
  });
});

describe('build.runAndWait', () => {
  it('starts an async build and polls its status until it ends', async () => {
    const running = { ok: true, buildId: 'b1', envId: 'env:dev', status: 'running' };
    server = await createTestServer({
      'POST /api/build': () => ({
        status: 202,
        body: { ...running, statusUrl: '/api/build/status/b1' },
      }),
      'GET /api/build/status/b1': sequence(
        { body: running },
        { body: running },
        {
          body: {
            ...running,
            status: 'ok',
            artifacts: 12,
            durationMs: 40,
            transformErrors: [],
            deploy: null,
          },
        },
      ),
    });
    const statuses: string[] = [];
    const final = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .build.runAndWait(
        { env: 'dev', mode: 'full' },
        { pollIntervalMs: 5, onStatus: (s) => statuses.push(s.status) },
      );
    expect(final).toMatchObject({ status: 'ok', artifacts: 12 });
    expect(statuses).toEqual(['running', 'running', 'ok']);
    expect(server.hits('POST /api/build')[0]?.body).toEqual({ env: 'dev', mode: 'full', async: true });
  });

  it('gives up after maxWaitMs', async () => {
    server = await createTestServer({
      'GET /api/build/status/b2': () => ({
        body: { ok: true, buildId: 'b2', envId: 'env:dev', status: 'running' },
      }),
    });
    const error = await createClient({ baseUrl: server.url, apiKey: 'k' })
      .site('site:blog')
      .build.wait('b2', { pollIntervalMs: 5, maxWaitMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'BuildWaitTimeoutError', buildId: 'b2' });
  });
});

describe('types.apply', () => {
  const movie = {
    name: 'movie',
    label: 'Movie',
    nodeLabel: 'Movie',
    keyField: 'slug',
    fields: [{ name: 'slug', type: 'string' as const, required: true }],
  };

  it('creates a missing type and PATCHes an existing one', async () => {
    let exists = false;
    server = await createTestServer({
      'GET /api/types/movie': () =>
        exists ? { body: movie } : { status: 404, body: { error: 'not found', code: 'not_found' } },
      'POST /api/types': ({ body }) => {
        exists = true;
        return { status: 201, body };
      },
      'PATCH /api/types/movie': ({ body }) => ({ body: { ...movie, ...(body as object) } }),
    });
    const types = createClient({ baseUrl: server.url, apiKey: 'k' }).site('site:blog').types;
    expect((await types.apply(movie)).action).toBe('created');
    const second = await types.apply({ ...movie, label: 'Film' });
    expect(second).toMatchObject({ action: 'updated', type: { label: 'Film' } });
    expect(server.hits('PATCH /api/types/movie')[0]?.body).not.toHaveProperty('name');
  });
});

describe('audit.verify', () => {
  it("defaults graph to the site's graphName", async () => {
    server = await createTestServer({
      'GET /api/sites/site%3Ablog': () => ({
        body: {
          id: 'site:blog',
          name: 'Blog',
          slug: 'blog',
          graphName: 'g-123',
          createdAt: '2026-11-22T03:00:00.000Z',
        },
      }),
      'GET /api/audit/verify': ({ url }) => ({
        body: {
          graph: new URL(url, 'http://x').searchParams.get('graph'),
          status: 'ok',
          records: 3,
          last_seq: 3,
        },
      }),
    });
    const verdict = await createClient({ baseUrl: server.url, apiKey: 'k' }).site('site:blog').audit.verify();
    expect(verdict).toMatchObject({ graph: 'g-123', status: 'ok' });
  });
});
