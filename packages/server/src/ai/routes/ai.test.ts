import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/**
 * /api/ai against an OpenAI-compatible provider on 127.0.0.1 that answers recorded
 * chat.completion responses (__fixtures__/chat) and records what it was asked.
 */
const FIXTURES = join(import.meta.dirname, '../__fixtures__/chat');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: Array<{
      role: string;
      content: string | Array<{ type: string; text?: string; image_url?: { url: string } }>;
    }>;
    response_format?: { type: string };
  };
}

let provider: Server;
let origin: string;
let received: Received[];
/** The next answer: a fixture file and its status. */
let next: { file: string; status: number };
let site: ContentTestSite;

/** The text of the last user message the provider received. */
function lastPrompt(): string {
  const messages = received.at(-1)!.body.messages;
  const content = messages.at(-1)!.content;
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n');
}

beforeAll(async () => {
  provider = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(fixture(next.file));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
  site = await createContentTestSite({
    slug: 'ai',
    // The operator-configured endpoint is trusted by the guarded fetcher: no CMS_OUTBOUND_ALLOW needed.
    env: { AI_URL: `${origin}/v1`, AI_MODEL: 'gpt-4o-mini', AI_API_KEY: 'sk-test-key', AI_RATE_LIMIT: '100' },
  });
  await site.createType({
    name: 'tag',
    label: 'Tag',
    nodeLabel: 'Tag',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'name', type: 'string' },
    ],
  });
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'title', type: 'string', translatable: true },
      { name: 'body', type: 'markdown', translatable: true },
      { name: 'views', type: 'number' },
      { name: 'tags', type: 'stringlist' },
    ],
  });
  const write = async (url: string, payload: Record<string, unknown>) => {
    const res = await site.request({ method: 'POST', url, payload });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  };
  await write('/api/content/tag', { slug: 'hiking', name: 'Hiking' });
  await write('/api/content/tag', { slug: 'travel', name: 'Travel' });
  await write('/api/content/tag', { slug: 'food', name: 'Food' });
  await write('/api/content/post', {
    slug: 'alps',
    title: 'The Alpine Pass Route on foot',
    body: 'From **Sargans** to Montreux over 16 passes.',
    views: 12,
    tags: ['long-distance'],
  });
  await write('/api/locales', { code: 'en', name: 'English' });
  await write('/api/locales', { code: 'de', name: 'Deutsch' });
});

afterAll(async () => {
  await site?.close();
  await new Promise((resolve) => provider.close(resolve));
});

beforeEach(() => {
  received = [];
});

const call = (target: ContentTestSite, path: string, payload: Record<string, unknown>) =>
  target.request({ method: 'POST', url: `/api/ai/${path}`, payload });

describe('/api/ai against an OpenAI-compatible provider', () => {
  it('seo-description: sends the item text with the model and key, answers the tidied text, model and usage', async () => {
    next = { file: 'seo-description.json', status: 200 };
    const res = await call(site, 'seo-description', { itemId: 'post:alps' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      description:
        'Hike the Alpine Pass Route from Sargans to Montreux: 16 stages, 16 passes and where to sleep on the way. Plan your Swiss traverse.',
      model: 'gpt-4o-mini-2024-07-18',
      usage: { prompt: 212, completion: 34, total: 246 },
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe('/v1/chat/completions');
    expect(received[0]!.headers.authorization).toBe('Bearer sk-test-key');
    expect(received[0]!.body.model).toBe('gpt-4o-mini');
    expect(received[0]!.body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(lastPrompt()).toContain('at most 160 characters');
    expect(lastPrompt()).toContain('title: The Alpine Pass Route on foot');
    expect(lastPrompt()).toContain('body: From **Sargans** to Montreux');
    // Suggestions only: the item is unchanged.
    const item = await site.request({ method: 'GET', url: '/api/content/post/post:alps' });
    expect(item.json().version).toBe(1);
  });

  it('summarize: works from a given text too', async () => {
    next = { file: 'summarize.json', status: 200 };
    const res = await call(site, 'summarize', { text: 'A long text about a long walk.', maxWords: 40 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().summary).toMatch(/^The Alpine Pass Route crosses Switzerland/);
    expect(res.json().usage).toEqual({ prompt: 248, completion: 49, total: 297 });
    expect(lastPrompt()).toContain('at most 40 words');
    expect(lastPrompt()).toContain('A long text about a long walk.');
  });

  it('alt-text: sends a stored image inline as a data URL, with the editor description', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
      'base64',
    );
    const boundary = 'ai-test-boundary';
    const upload = await site.request({
      method: 'POST',
      url: '/api/media/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ridge.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(upload.statusCode, upload.body).toBe(201);
    next = { file: 'alt-text.json', status: 200 };
    const res = await call(site, 'alt-text', {
      assetId: upload.json().id,
      description: 'hiker above a lake',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      alt: 'Hiker with a red backpack on a ridge trail above a turquoise alpine lake',
      usage: { prompt: 1021, completion: 16, total: 1037 },
    });
    const parts = received[0]!.body.messages.at(-1)!.content as Array<{
      type: string;
      image_url?: { url: string };
    }>;
    expect(parts.find((part) => part.type === 'image_url')!.image_url!.url).toBe(
      `data:image/png;base64,${png.toString('base64')}`,
    );
    expect(lastPrompt()).toContain('hiker above a lake');
    expect(lastPrompt()).toContain('ridge.png');
    expect((await call(site, 'alt-text', { assetId: 'asset:000000000000000000000000' })).statusCode).toBe(
      404,
    );
    expect((await call(site, 'alt-text', {})).statusCode).toBe(400);
  });

  it("suggest-tags: offers only the site's tags and keeps only those, listing the others as rejected", async () => {
    next = { file: 'suggest-tags.json', status: 200 };
    const res = await call(site, 'suggest-tags', { itemId: 'post:alps' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      tags: [
        { id: 'tag:hiking', label: 'Hiking', source: 'item' },
        { id: 'tag:travel', label: 'Travel', source: 'item' },
      ],
      rejected: ['switzerland'],
      usage: { total: 319 },
    });
    expect(received[0]!.body.response_format).toEqual({ type: 'json_object' });
    const prompt = lastPrompt();
    for (const offered of [
      'tag:hiking (Hiking)',
      'tag:travel (Travel)',
      'tag:food (Food)',
      '- long-distance',
    ]) {
      expect(prompt).toContain(offered);
    }
  });

  it('translate: proposes the translatable fields in the locale with the PUT that applies them; stores nothing', async () => {
    next = { file: 'translate.json', status: 200 };
    const res = await call(site, 'translate', { itemId: 'post:alps', locale: 'de' });
    expect(res.statusCode, res.body).toBe(200);
    const fields = {
      title: 'Die Alpenpassroute zu Fuß',
      body: 'Von **Sargans** nach Montreux über 16 Pässe.',
    };
    expect(res.json()).toEqual({
      itemId: 'post:alps',
      locale: 'de',
      sourceLocale: 'en',
      fields,
      apply: {
        method: 'PUT',
        path: '/api/locales/de/translations',
        body: { items: [{ itemId: 'post:alps', fields }] },
      },
      model: 'gpt-4o-mini-2024-07-18',
      usage: { prompt: 187, completion: 41, total: 228 },
    });
    // Only translatable text fields were sent (not views, not tags).
    const sent = JSON.parse(lastPrompt().slice(lastPrompt().indexOf('\n\n{') + 2));
    expect(sent).toEqual({
      title: 'The Alpine Pass Route on foot',
      body: 'From **Sargans** to Montreux over 16 passes.',
    });
    expect(lastPrompt()).toContain('into Deutsch (de)');
    const stored = await site.request({
      method: 'GET',
      url: '/api/locales/de/translations?itemId=post:alps',
    });
    expect(stored.json().items ?? []).toEqual([]);
    // The proposal applies as it is.
    const applied = await site.request({
      method: 'PUT',
      url: res.json().apply.path,
      payload: res.json().apply.body,
    });
    expect(applied.statusCode, applied.body).toBe(200);
  });

  it('translate: 400 for a locale that is not the site’s, or its default, and before any provider call', async () => {
    const foreign = await call(site, 'translate', { itemId: 'post:alps', locale: 'fr' });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({
      code: 'validation_failed',
      error: expect.stringContaining('fr is not a locale of this site'),
    });
    const own = await call(site, 'translate', { itemId: 'post:alps', locale: 'en' });
    expect(own.statusCode).toBe(400);
    expect((await call(site, 'translate', { itemId: 'post:nope', locale: 'de' })).statusCode).toBe(404);
    expect(received).toEqual([]);
  });

  it("answers 502 ai_provider_failed with the provider's message when it fails", async () => {
    next = { file: 'error-invalid-api-key.json', status: 401 };
    const res = await call(site, 'summarize', { text: 'x' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      code: 'ai_provider_failed',
      error: expect.stringContaining('Incorrect API key provided'),
    });
    expect(res.json().error).toContain('401');
  });

  it('validates bodies (400) before any provider call', async () => {
    expect((await call(site, 'summarize', { itemId: 'post:alps', text: 'both' })).statusCode).toBe(400);
    expect((await call(site, 'seo-description', {})).statusCode).toBe(400);
    expect(received).toEqual([]);
  });
});

describe('/api/ai limits and configuration', () => {
  it('answers 503 ai_not_configured naming the variables when no provider is configured', async () => {
    const bare = await createContentTestSite({ slug: 'ai-bare' });
    try {
      const res = await call(bare, 'summarize', { text: 'x' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        code: 'ai_not_configured',
        error: expect.stringContaining('AI_URL'),
      });
      expect(res.json().hint).toContain('AI_API_KEY');
    } finally {
      await bare.close();
    }
  });

  it('answers 429 with Retry-After past AI_RATE_LIMIT calls of one site per minute', async () => {
    const limited = await createContentTestSite({
      slug: 'ai-limited',
      env: { AI_URL: `${origin}/v1/chat/completions`, AI_RATE_LIMIT: '2' },
    });
    try {
      next = { file: 'summarize.json', status: 200 };
      expect((await call(limited, 'summarize', { text: 'one' })).statusCode).toBe(200);
      expect((await call(limited, 'summarize', { text: 'two' })).statusCode).toBe(200);
      const third = await call(limited, 'summarize', { text: 'three' });
      expect(third.statusCode).toBe(429);
      expect(third.json()).toMatchObject({ code: 'rate_limited', error: expect.any(String) });
      const retryAfter = Number(third.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The third call never reached the provider; the endpoint URL was used as given, without a key.
      expect(received).toHaveLength(2);
      expect(received[0]!.url).toBe('/v1/chat/completions');
      expect(received[0]!.headers.authorization).toBeUndefined();
      expect(received[0]!.body.model).toBe('gpt-4o-mini');
    } finally {
      await limited.close();
    }
  });
});
