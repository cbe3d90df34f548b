import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client';
import { isApiError } from '../errors/api-error';
import { createTestServer, type TestServer } from '../test-support/create-test-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { prompt: 10, completion: 5, total: 15 };
const model = 'gpt-4o-mini-2024-07-18';

describe('site.ai', () => {
  it('posts each task to its route with X-Site-Id and parses the answer', async () => {
    const fields = { title: 'Hallo' };
    server = await createTestServer({
      'POST /api/ai/seo-description': () => ({ body: { description: 'D', model, usage } }),
      'POST /api/ai/alt-text': () => ({ body: { alt: 'A', model, usage } }),
      'POST /api/ai/suggest-tags': () => ({
        body: { tags: [{ id: 'tag:a', label: 'A', source: 'item' }], rejected: [], model, usage },
      }),
      'POST /api/ai/summarize': () => ({ body: { summary: 'S', model, usage } }),
      'POST /api/ai/translate': () => ({
        body: {
          itemId: 'post:hello',
          locale: 'de',
          sourceLocale: 'en',
          fields,
          apply: {
            method: 'PUT',
            path: '/api/locales/de/translations',
            body: { items: [{ itemId: 'post:hello', fields }] },
          },
          model,
          usage,
        },
      }),
    });
    const site = createClient({ baseUrl: server.url, apiKey: 'k' }).site('site:blog');
    expect((await site.ai.seoDescription({ itemId: 'post:hello' })).description).toBe('D');
    expect((await site.ai.altText({ description: 'a kite' })).alt).toBe('A');
    expect((await site.ai.suggestTags({ text: 't', max: 2 })).tags[0]?.id).toBe('tag:a');
    expect((await site.ai.summarize({ text: 't' })).usage).toEqual(usage);
    expect(
      (await site.ai.translate({ itemId: 'post:hello', locale: 'de' })).apply.body.items[0]?.fields,
    ).toEqual(fields);
    expect(
      server.requests.map((request) => [request.url, request.headers['x-site-id'], request.body]),
    ).toEqual([
      ['/api/ai/seo-description', 'site:blog', { itemId: 'post:hello' }],
      ['/api/ai/alt-text', 'site:blog', { description: 'a kite' }],
      ['/api/ai/suggest-tags', 'site:blog', { text: 't', max: 2 }],
      ['/api/ai/summarize', 'site:blog', { text: 't' }],
      ['/api/ai/translate', 'site:blog', { itemId: 'post:hello', locale: 'de' }],
    ]);
  });

  it('surfaces 503 ai_not_configured as an ApiError', async () => {
    server = await createTestServer({
      'POST /api/ai/summarize': () => ({
        status: 503,
        body: { error: 'No AI provider is configured on this server: set AI_URL', code: 'ai_not_configured' },
      }),
    });
    const site = createClient({ baseUrl: server.url, apiKey: 'k', retry: false }).site('site:blog');
    const error = await site.ai.summarize({ text: 't' }).catch((caught: unknown) => caught);
    expect(isApiError(error) && error.code).toBe('ai_not_configured');
  });
});

describe('site.media stock', () => {
  it('pages a search and imports a photo', async () => {
    const sha = 'b'.repeat(64);
    server = await createTestServer({
      'GET /api/media/stock': () => ({ body: { items: [], page: 2, perPage: 5, total: 0 } }),
      'POST /api/media/stock/import': () => ({
        status: 201,
        body: {
          ok: true,
          id: `asset:${sha.slice(0, 24)}`,
          url: `/media/assets/${sha}.jpg`,
          sha256: sha,
          filename: 'pexels-1.jpg',
          mimetype: 'image/jpeg',
          bytes: 10,
          uploadedBy: 'user:owner',
          uploadedAt: '2026-11-25T10:00:00.000Z',
          credit: {
            provider: 'pexels',
            id: '1',
            photographer: 'Ann',
            photographerUrl: null,
            pageUrl: null,
            license: 'Pexels License',
          },
        },
      }),
    });
    const site = createClient({ baseUrl: server.url, apiKey: 'k' }).site('site:blog');
    expect((await site.media.stock({ provider: 'pexels', q: 'x', page: 2, perPage: 5 })).page).toBe(2);
    expect((await site.media.stockImport({ provider: 'pexels', id: '1' })).credit?.photographer).toBe('Ann');
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/media/stock?provider=pexels&q=x&page=2&perPage=5',
      '/api/media/stock/import',
    ]);
  });
});
