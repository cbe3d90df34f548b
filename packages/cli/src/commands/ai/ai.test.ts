import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-ai-');
const usage = { prompt: 120, completion: 30, total: 150 };
const model = 'gpt-4o-mini-2024-07-18';
const bodyOf = (request: { body: unknown }) => request.body;

describe('cms ai', () => {
  it('seo and summarize send an item id or --text and print the suggestion, with the usage on stderr', async () => {
    const server = await t.serve({
      'POST /api/ai/seo-description': () => ({
        body: { description: 'Walk the Alps in 16 stages.', model, usage },
      }),
      'POST /api/ai/summarize': () => ({ body: { summary: 'A long walk.', model, usage } }),
    });
    const seo = await t.cli(['ai', 'seo', 'post:alps', '--max-length', '120']);
    expect(seo.code, seo.stderr).toBe(0);
    expect(seo.stdout).toBe('Walk the Alps in 16 stages.\n');
    expect(seo.stderr).toContain(`${model}: 150 tokens (120 prompt, 30 completion)`);
    expect(bodyOf(server.hits('POST /api/ai/seo-description')[0]!)).toEqual({
      itemId: 'post:alps',
      maxLength: 120,
    });
    expect(server.hits('POST /api/ai/seo-description')[0]!.headers['x-site-id']).toBe('site:blog');

    const summary = await t.cli(['ai', 'summarize', '--text', 'A text', '--json']);
    expect(JSON.parse(summary.stdout)).toEqual({ summary: 'A long walk.', model, usage });
    expect(bodyOf(server.hits('POST /api/ai/summarize')[0]!)).toEqual({ text: 'A text' });
  });

  it('refuses both or neither of an item id and --text, exit 2, before calling the server', async () => {
    const server = await t.serve({});
    expect((await t.cli(['ai', 'tags'])).code).toBe(2);
    expect((await t.cli(['ai', 'summarize', 'post:a', '--text', 'x'])).code).toBe(2);
    expect((await t.cli(['ai', 'alt'])).code).toBe(2);
    expect(server.requests).toEqual([]);
  });

  it('tags prints the chosen tags and those dropped; alt sends the asset or URL', async () => {
    const server = await t.serve({
      'POST /api/ai/suggest-tags': () => ({
        body: {
          tags: [{ id: 'tag:hiking', label: 'Hiking', source: 'item' }],
          rejected: ['switzerland'],
          model,
          usage,
        },
      }),
      'POST /api/ai/alt-text': () => ({ body: { alt: 'A hiker on a ridge', model, usage } }),
    });
    const tags = await t.cli(['ai', 'tags', 'post:alps', '--max', '3']);
    expect(tags.stdout).toBe('tag:hiking  Hiking\nnot tags of the site (dropped): switzerland\n');
    expect(bodyOf(server.hits('POST /api/ai/suggest-tags')[0]!)).toEqual({ itemId: 'post:alps', max: 3 });
    const alt = await t.cli([
      'ai',
      'alt',
      '--image-url',
      'https://example.org/a.jpg',
      '--description',
      'a ridge',
    ]);
    expect(alt.stdout).toBe('A hiker on a ridge\n');
    expect(bodyOf(server.hits('POST /api/ai/alt-text')[0]!)).toEqual({
      imageUrl: 'https://example.org/a.jpg',
      description: 'a ridge',
    });
  });

  it('translate prints the proposal; --apply stores it through PUT /api/locales/{code}/translations', async () => {
    const fields = { title: 'Hallo' };
    const server = await t.serve({
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
      'PUT /api/locales/de/translations': () => ({
        body: { locale: 'de', entries: {}, items: [{ itemId: 'post:hello', fields }] },
      }),
    });
    const proposed = await t.cli(['ai', 'translate', 'post:hello', '--locale', 'de', '--field', 'title']);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stdout).toContain('title: Hallo\n');
    expect(bodyOf(server.hits('POST /api/ai/translate')[0]!)).toEqual({
      itemId: 'post:hello',
      locale: 'de',
      fields: ['title'],
    });
    expect(server.hits('PUT /api/locales/de/translations')).toEqual([]);

    const applied = await t.cli(['ai', 'translate', 'post:hello', '--locale', 'de', '--apply']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Stored as the de translation of post:hello.');
    expect(bodyOf(server.hits('PUT /api/locales/de/translations')[0]!)).toMatchObject({
      items: [{ itemId: 'post:hello', fields }],
    });
  });

  it('shows the 503 of a server without an AI provider', async () => {
    await t.serve({
      'POST /api/ai/summarize': () => ({
        status: 503,
        body: {
          error: 'No AI provider is configured on this server: set AI_URL …',
          code: 'ai_not_configured',
        },
      }),
    });
    const result = await t.cli(['ai', 'summarize', '--text', 'x']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('AI_URL');
  });
});
