import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

let site: ContentTestSite;

const call = (method: 'GET' | 'PUT' | 'PATCH' | 'POST', url: string, payload?: unknown, headers = {}) =>
  site.request({ method, url, payload: payload as Record<string, unknown>, headers });

beforeAll(async () => {
  site = await createContentTestSite();
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'title',
    fields: [{ name: 'title', type: 'string', required: true }],
  });
  expect((await call('POST', '/api/content/post', { title: 'Hello' })).statusCode).toBe(201);
  expect(
    (await call('POST', '/api/templates', { name: 'post', content: '<h1>{{ item.title }}</h1>' })).statusCode,
  ).toBe(201);
  const route = await call('POST', '/api/routes', {
    slug: 'old',
    path: '/old/',
    kind: 'redirect',
    redirectTo: '/',
  });
  expect(route.statusCode, route.body).toBe(201);
  const view = await call('POST', '/api/views', {
    name: 'home',
    path: '/',
    template: 'post',
    paginate: { type: 'post', sort: '-title' },
  });
  expect(view.statusCode, view.body).toBe(201);
  expect((await call('POST', '/api/releases', { name: 'spring' })).statusCode).toBe(201);
});
afterAll(async () => {
  await site.close();
});

function etagOf(response: LightMyRequestResponse): string {
  const tag = response.headers.etag;
  expect(typeof tag, `${response.statusCode} ${response.body}`).toBe('string');
  return tag as string;
}

describe('ETag and If-None-Match', () => {
  it('sends an ETag with every readable resource and list the site has', async () => {
    const reads = site.platform.app.routeTable
      .filter((route) => route.method === 'GET' && route.url.startsWith('/api/') && !route.config.public)
      .map((route) =>
        route.url
          .replace(':type/:id', 'post/post:hello')
          .replace(':type', 'post')
          .replace('/api/sites/:id', `/api/sites/${site.siteId}`)
          .replace('/api/templates/:name', '/api/templates/post')
          .replace('/api/routes/:slug', '/api/routes/old')
          .replace('/api/views/:name', '/api/views/home')
          .replace('/api/releases/:id', '/api/releases/release:spring'),
      )
      .filter((url) => !url.includes(':'));
    let answered = 0;
    for (const url of reads) {
      const response = await call('GET', url);
      if (response.statusCode !== 200) continue;
      answered++;
      expect(response.headers.etag, url).toMatch(/^"[^"]+"$/);
    }
    // Sanity: most reads answered (items, types, templates, routes, views, releases, lists...).
    expect(answered).toBeGreaterThan(25);
  });

  it('answers 304 without a body when If-None-Match names the current tag, 200 once it changed', async () => {
    for (const url of [
      '/api/content/post/post:hello',
      '/api/content/post',
      '/api/templates/post',
      '/api/types',
    ]) {
      const first = await call('GET', url);
      const tag = etagOf(first);
      const again = await call('GET', url, undefined, { 'if-none-match': `W/${tag}, "other"` });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe('');
      expect(again.headers.etag, url).toBe(tag);
      expect((await call('GET', url, undefined, { 'if-none-match': '"other"' })).statusCode, url).toBe(200);
      expect((await call('GET', url, undefined, { 'if-none-match': '*' })).statusCode, url).toBe(304);
    }
    const item = await call('GET', '/api/content/post/post:hello');
    await call('PATCH', '/api/content/post/post:hello', { title: 'Hello' }, { 'if-match': etagOf(item) });
    const changed = await call('GET', '/api/content/post/post:hello', undefined, {
      'if-none-match': etagOf(item),
    });
    expect(changed.statusCode).toBe(200);
    expect(etagOf(changed)).not.toBe(etagOf(item));
  });
});

describe('If-Match on every update', () => {
  /**
   * Two editors read the resource; the first writes with its tag (200, a new tag that a read
   * then shows), the second writes with the old tag: 409 version_conflict naming the current
   * tag, and its change is not stored.
   */
  async function secondEditorLoses({
    read,
    write,
    first,
    second,
    stored,
  }: {
    read: string;
    write: { method: 'PUT' | 'PATCH'; url: string };
    first: Record<string, unknown>;
    second: Record<string, unknown>;
    stored: (body: Record<string, unknown>) => unknown;
  }) {
    const tag = etagOf(await call('GET', read));
    const won = await call(write.method, write.url, first, { 'if-match': tag });
    expect(won.statusCode, `${write.url}: ${won.body}`).toBe(200);
    const newTag = etagOf(won);
    expect(newTag, write.url).not.toBe(tag);
    const reread = await call('GET', read);
    expect(etagOf(reread), write.url).toBe(newTag);
    const lost = await call(write.method, write.url, second, { 'if-match': tag });
    expect(lost.statusCode, write.url).toBe(409);
    expect(lost.json(), write.url).toMatchObject({ code: 'version_conflict', etag: newTag });
    expect(lost.headers.etag, write.url).toBe(newTag);
    const after = await call('GET', read);
    expect(etagOf(after), write.url).toBe(newTag);
    return stored(after.json());
  }

  it('templates: a stale PUT is refused instead of writing a version over the other editor’s', async () => {
    const content = await secondEditorLoses({
      read: '/api/templates/post',
      write: { method: 'PUT', url: '/api/templates/post' },
      first: { content: '<h1>A</h1>' },
      second: { content: '<h1>B</h1>' },
      stored: (body) => body.content,
    });
    expect(content).toBe('<h1>A</h1>');
    const versions = (await call('GET', '/api/templates/post/versions')).json();
    expect(versions.map((v: { content: string }) => v.content)).toEqual([
      '<h1>{{ item.title }}</h1>',
      '<h1>A</h1>',
    ]);
  });

  it('content types, sites, routes (PATCH and PUT), view SEO and environments', async () => {
    expect(
      await secondEditorLoses({
        read: '/api/types/post',
        write: { method: 'PATCH', url: '/api/types/post' },
        first: { label: 'Article' },
        second: { label: 'Story' },
        stored: (body) => body.label,
      }),
    ).toBe('Article');
    expect(
      await secondEditorLoses({
        read: `/api/sites/${site.siteId}`,
        write: { method: 'PUT', url: `/api/sites/${site.siteId}` },
        first: { mantra: 'first' },
        second: { mantra: 'second' },
        stored: (body) => body.mantra,
      }),
    ).toBe('first');
    for (const method of ['PATCH', 'PUT'] as const) {
      expect(
        await secondEditorLoses({
          read: '/api/routes/old',
          write: { method, url: '/api/routes/old' },
          first: { redirectTo: `/${method}-a/` },
          second: { redirectTo: `/${method}-b/` },
          stored: (body) => body.redirectTo,
        }),
      ).toBe(`/${method}-a/`);
    }
    expect(
      await secondEditorLoses({
        read: '/api/views/home/seo',
        write: { method: 'PUT', url: '/api/views/home/seo' },
        first: { title: 'A' },
        second: { title: 'B' },
        stored: (body) => body.title,
      }),
    ).toBe('A');
  });

  it('environments: the PUT answers the tag; If-Match on one that does not exist is 409', async () => {
    const created = await call('PUT', '/api/releases/environments/env:staging', { order: 2 });
    expect(created.statusCode, created.body).toBe(200);
    const tag = etagOf(created);
    const changed = await call(
      'PUT',
      '/api/releases/environments/env:staging',
      { order: 3 },
      { 'if-match': tag },
    );
    expect(changed.statusCode, changed.body).toBe(200);
    const stale = await call(
      'PUT',
      '/api/releases/environments/env:staging',
      { order: 4 },
      { 'if-match': tag },
    );
    expect(stale.statusCode).toBe(409);
    const missing = await call('PUT', '/api/releases/environments/env:qa', { order: 5 }, { 'if-match': '*' });
    expect(missing.statusCode).toBe(409);
    expect(missing.json().error).toContain('environment env:qa changed since you read it');
    const list = (await call('GET', '/api/releases/environments')).json();
    expect(list.map((env: { id: string; order: number }) => [env.id, env.order])).toEqual([
      ['env:dev', 0],
      ['env:prod', 1],
      ['env:staging', 3],
    ]);
  });

  it('takes * as "any current version" and ignores no If-Match at all', async () => {
    expect(
      (await call('PATCH', '/api/routes/old', { redirectTo: '/star/' }, { 'if-match': '*' })).statusCode,
    ).toBe(200);
    expect((await call('PATCH', '/api/routes/old', { redirectTo: '/free/' })).statusCode).toBe(200);
    expect(
      (await call('PATCH', '/api/routes/old', { redirectTo: '/x/' }, { 'if-match': 'garbage' })).statusCode,
    ).toBe(409);
  });
});
