import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { serveCheck } from '../deploy/serve-check';
import type { Snapshot } from '../snapshot/types';
import { ApiSource } from './api-source';

let server: Server | null = null;

/** The blog fixture completed to the core snapshot schema, as the server's export carries it. */
function exported(): Snapshot {
  const snapshot = readFixtureSnapshot('blog');
  Object.assign(snapshot.site, {
    graphName: '7f9c2b1e-0c1d-4b7a-9d3e-1a2b3c4d5e6f',
    createdAt: '2026-01-01T00:00:00Z',
  });
  for (const type of snapshot.types) type.nodeLabel = type.label;
  snapshot.items.forEach((item, index) => {
    Object.assign(item, {
      version: 1,
      hash: `sha256:${String(index).padStart(64, '0')}`,
      status: item.status ?? 'published',
    });
  });
  for (const transform of snapshot.transforms ?? []) transform.event = 'beforeRender';
  return snapshot;
}
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = null;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('ApiSource', () => {
  it('reads GET /api/export with the key and site headers and answers queries from it', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const url = await listen((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization, site: req.headers['x-site-id'] });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(exported()));
    });
    const source = new ApiSource({ url, key: 'k-123', site: 'site:fixture-blog', env: 'prod' });
    expect((await source.list({ type: 'post' })).total).toBe(4);
    expect((await source.item('post:hello-world'))?.fields.title).toBe('Hello World');
    expect((await source.snapshot()).format).toBe('trellis-snapshot');
    expect(seen).toEqual([{ url: '/api/export', auth: 'Bearer k-123', site: 'site:fixture-blog' }]);
  });

  it('turns an error answer into invalid_snapshot with the server message', async () => {
    const url = await listen((_req, res) => {
      res.statusCode = 403;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: 'no access', code: 'forbidden' }));
    });
    await expect(new ApiSource({ url, key: 'k', site: 'site:x' }).snapshot()).rejects.toMatchObject({
      code: 'invalid_snapshot',
      message: expect.stringContaining('403: no access'),
    });
  });

  it('refuses an answer that is not a snapshot', async () => {
    const url = await listen((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ format: 'something-else' }));
    });
    await expect(new ApiSource({ url, key: 'k', site: 'site:x' }).snapshot()).rejects.toMatchObject({
      code: 'invalid_snapshot',
    });
  });
});

describe('serveCheck', () => {
  it('reports status and timing of a real URL, and never throws', async () => {
    const url = await listen((req, res) => {
      res.statusCode = req.url === '/' ? 200 : 404;
      res.end('hi');
    });
    expect(await serveCheck(`${url}/`)).toMatchObject({ ok: true, status: 200, url: `${url}/`, error: '' });
    expect(await serveCheck(`${url}/missing`)).toMatchObject({ ok: false, status: 404, error: 'HTTP 404' });
    const down = await serveCheck('http://127.0.0.1:1/');
    expect(down).toMatchObject({ ok: false, status: 0 });
    expect(down.error).not.toBe('');
  });
});
