import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashedBagOfWords } from '@trelliscms/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

let site: ContentTestSite | undefined;
let server: Server | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const place = {
  name: 'place',
  label: 'Place',
  nodeLabel: 'Place',
  keyField: 'name',
  fields: [
    { name: 'name', type: 'string', required: true },
    { name: 'about', type: 'text' },
  ],
};

async function seed(target: ContentTestSite): Promise<void> {
  await target.createType(place);
  const records = [
    { name: 'Fiji', about: 'volcanic islands in the south pacific ocean' },
    { name: 'Tonga', about: 'a chain of volcanic islands in the pacific' },
    { name: 'Mongolia', about: 'landlocked steppe with long cold winters' },
  ];
  const response = await target.request({
    method: 'POST',
    url: '/api/import/json',
    payload: { typeName: 'place', records },
  });
  expect(response.json().created).toBe(3);
}

const materialize = (target: ContentTestSite, query: string, headers?: Record<string, string>) =>
  target.request({ method: 'POST', url: `/api/maintenance/embeddings/materialize${query}`, headers });

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => resolve(text));
  });
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server!.address() as AddressInfo).port;
}

describe('POST /api/maintenance/embeddings/materialize', () => {
  it('embeds every item without an embedding with the offline hashed-bow provider, idempotently', async () => {
    site = await createContentTestSite();
    await seed(site);
    const first = await materialize(site, '?type=place');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ ok: true, type: 'place', nodeLabel: 'Place', embedded: 3 });
    expect(first.json().note).toContain('hashed-bow');
    expect(await site.graph.hasEmbedding('place:fiji')).toBe(true);

    const again = await materialize(site, '?type=place');
    expect(again.json()).toMatchObject({ ok: true, embedded: 0 });

    await site.request({
      method: 'POST',
      url: '/api/content/place',
      payload: { name: 'Samoa', about: 'pacific islands' },
    });
    // once materialized, a type's new items are embedded as they are written
    expect(await site.graph.hasEmbedding('place:samoa')).toBe(true);
    expect((await materialize(site, '?type=place')).json().embedded).toBe(0);
    // and an import that replaces an item embeds it again
    const before = (await site.graph.getEmbeddings(['place:tonga'])).get('place:tonga')!;
    const imported = await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: { typeName: 'place', records: [{ name: 'Tonga', about: 'landlocked steppe' }] },
    });
    expect(imported.json()).toMatchObject({ updated: 1, failed: 0 });
    const after = (await site.graph.getEmbeddings(['place:tonga'])).get('place:tonga')!;
    expect(after).not.toEqual(before);
    const fresh = hashedBagOfWords('Tonga\nlandlocked steppe');
    for (const [i, value] of after.entries()) expect(value).toBeCloseTo(fresh[i]!, 5);
    await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: {
        typeName: 'place',
        records: [{ name: 'Tonga', about: 'a chain of volcanic islands in the pacific' }],
      },
    });

    const hits = await site.graph.similar({
      label: 'Place',
      vector: hashedBagOfWords('Fiji\nvolcanic islands in the south pacific ocean'),
      k: 2,
      excludeId: 'place:fiji',
    });
    expect(hits[0]?.node.id).toBe('place:tonga');
  });

  it('answers 400 without a type, 404 for an unknown type, 403 below admin', async () => {
    site = await createContentTestSite();
    await site.createType(place);
    const missing = await materialize(site, '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('missing_parameter');
    expect((await materialize(site, '?type=nope')).statusCode).toBe(404);
    const editor = await site.platform.addUser({ name: 'ed', siteId: site.siteId, role: 'editor' });
    expect(
      (await materialize(site, '?type=place', { authorization: `Bearer ${editor.key}` })).statusCode,
    ).toBe(403);
  });

  it('calls an OpenAI-compatible endpoint when EMBEDDINGS_URL is set', async () => {
    const calls: Array<{
      url: string;
      authorization: string | undefined;
      body: { model: string; input: string[] };
    }> = [];
    const port = await listen(async (request, response) => {
      const body = JSON.parse(await readBody(request));
      calls.push({ url: request.url ?? '', authorization: request.headers.authorization, body });
      const data = (body.input as string[]).map((text, index) => ({
        object: 'embedding',
        index,
        embedding: hashedBagOfWords(text, { dimensions: 16 }),
      }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data, model: body.model }));
    });
    site = await createContentTestSite({
      env: {
        EMBEDDINGS_URL: `http://127.0.0.1:${port}/v1`,
        EMBEDDINGS_MODEL: 'tiny-embed',
        EMBEDDINGS_API_KEY: 'sk-test',
      },
    });
    await seed(site);
    const response = await materialize(site, '?type=place');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ embedded: 3 });
    expect(response.json().note).toContain('openai-compatible:tiny-embed');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: '/v1/embeddings', authorization: 'Bearer sk-test' });
    expect(calls[0]?.body.model).toBe('tiny-embed');
    expect(calls[0]?.body.input).toContain('Mongolia\nlandlocked steppe with long cold winters');
    const hits = await site.graph.similar({
      label: 'Place',
      vector: hashedBagOfWords('Mongolia\nlandlocked steppe with long cold winters', { dimensions: 16 }),
      k: 1,
    });
    expect(hits[0]?.node.id).toBe('place:mongolia');
  });

  it('keeps a written item’s embedding in step with its text, and drops it when the provider fails then', async () => {
    let failing = false;
    const port = await listen(async (request, response) => {
      const body = JSON.parse(await readBody(request));
      if (failing) {
        response.writeHead(503);
        response.end('down');
        return;
      }
      const data = (body.input as string[]).map((text, index) => ({
        index,
        embedding: hashedBagOfWords(text, { dimensions: 16 }),
      }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data }));
    });
    site = await createContentTestSite({
      env: { EMBEDDINGS_URL: `http://127.0.0.1:${port}/v1`, EMBEDDINGS_MODEL: 'tiny-embed' },
    });
    await seed(site);
    expect((await materialize(site, '?type=place')).statusCode).toBe(200);
    const patch = (about: string) =>
      site!.request({ method: 'PATCH', url: '/api/content/place/place:mongolia', payload: { about } });
    expect((await patch('volcanic islands')).statusCode).toBe(200);
    const stored = (await site.graph.getEmbeddings(['place:mongolia'])).get('place:mongolia')!;
    const fresh = hashedBagOfWords('Mongolia\nvolcanic islands', { dimensions: 16 });
    // stored as float32
    expect(stored).toHaveLength(fresh.length);
    for (const [i, value] of stored.entries()) expect(value).toBeCloseTo(fresh[i]!, 5);

    failing = true;
    const written = await patch('steppe again');
    expect(written.statusCode, written.body).toBe(200);
    // the stale vector is gone (not ranked by text the item no longer has); materialize brings it back
    expect(await site.graph.hasEmbedding('place:mongolia')).toBe(false);
    failing = false;
    expect((await materialize(site, '?type=place')).json()).toMatchObject({ embedded: 1 });
  });

  it('answers 502 with a hint when the provider fails', async () => {
    const port = await listen(() => undefined);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    site = await createContentTestSite({ env: { EMBEDDINGS_URL: `http://127.0.0.1:${port}/v1/embeddings` } });
    await seed(site);
    const response = await materialize(site, '?type=place');
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({
      code: 'embedding_provider_failed',
      type: 'place',
      nodeLabel: 'Place',
      hint: expect.stringContaining('EMBEDDINGS_URL'),
    });
    expect(response.json().error).toContain('unreachable');
    expect(await site.graph.hasEmbedding('place:fiji')).toBe(false);
  });

  it('answers 502 when the provider answers an error status', async () => {
    const port = await listen((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":"bad key"}');
    });
    site = await createContentTestSite({ env: { EMBEDDINGS_URL: `http://127.0.0.1:${port}/v1` } });
    await seed(site);
    const response = await materialize(site, '?type=place');
    expect(response.statusCode).toBe(502);
    expect(response.json().error).toContain('answered 401');
  });
});
