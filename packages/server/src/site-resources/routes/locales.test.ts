import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

describe('locales', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'intl' });
  });
  afterEach(async () => {
    await site.close();
  });

  const post = (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'GET', url: string, payload?: unknown) =>
    site.request({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('is described in the OpenAPI document', async () => {
    const doc = (await site.platform.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/locales', '/api/locales/{code}', '/api/locales/{code}/translations']),
    );
    expect(Object.keys(doc.paths['/api/locales/{code}/translations'])).toEqual(
      expect.arrayContaining(['get', 'put']),
    );
  });

  it('keeps exactly one default, checks fallbacks and refuses to delete the default', async () => {
    const en = await post('POST', '/api/locales', { code: 'en', name: 'English' });
    expect(en.statusCode, en.body).toBe(201);
    // the first locale is the default
    expect(en.json()).toMatchObject({ code: 'en', default: true });
    expect((await post('POST', '/api/locales', { code: 'fr', name: 'Français' })).json().default).toBe(false);
    expect((await post('POST', '/api/locales', { code: 'fr', name: 'Again' })).statusCode).toBe(409);
    const unknown = await post('POST', '/api/locales', { code: 'de', name: 'Deutsch', fallback: 'nl' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatch(/falls back to nl, which is not a locale/);
    expect(
      (await post('POST', '/api/locales', { code: 'fr-CA', name: 'Canada', fallback: 'fr' })).statusCode,
    ).toBe(201);
    const cycle = await post('PATCH', '/api/locales/fr', { fallback: 'fr-CA' });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().error).toMatch(/cycle/);

    // a default stops being one only by another becoming the default
    expect((await post('PATCH', '/api/locales/en', { default: false })).statusCode).toBe(400);
    const refused = await post('DELETE', '/api/locales/en');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'conflict' });
    expect(refused.json().error).toMatch(/default locale/);
    // fr-CA falls back to fr
    expect((await post('DELETE', '/api/locales/fr')).statusCode).toBe(409);

    const read = await post('GET', '/api/locales/fr');
    const etag = read.headers.etag as string;
    const moved = await site.request({
      method: 'PATCH',
      url: '/api/locales/fr',
      headers: { 'if-match': etag },
      payload: { default: true },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const list = (await post('GET', '/api/locales')).json() as Array<{ code: string; default: boolean }>;
    expect(list.filter((locale) => locale.default).map((locale) => locale.code)).toEqual(['fr']);
    // the ETag read before the change is stale now
    const stale = await site.request({
      method: 'PATCH',
      url: '/api/locales/fr',
      headers: { 'if-match': etag },
      payload: { name: 'French' },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().code).toBe('version_conflict');
    expect((await post('DELETE', '/api/locales/en')).statusCode).toBe(204);
    expect((await post('GET', '/api/locales/en')).statusCode).toBe(404);
  });

  it('stores UI strings and translatable field values, and refuses fields that are not translatable', async () => {
    await site.createType({
      name: 'post',
      label: 'Post',
      nodeLabel: 'Post',
      keyField: 'slug',
      routePattern: '/{locale}/posts/{slug}/',
      fields: [
        { name: 'slug', type: 'string', required: true },
        { name: 'title', type: 'string', translatable: true },
        { name: 'views', type: 'number' },
      ],
    });
    expect((await post('POST', '/api/content/post', { slug: 'hello', title: 'Hello' })).statusCode).toBe(201);
    await post('POST', '/api/locales', { code: 'en', name: 'English' });
    await post('POST', '/api/locales', { code: 'fr', name: 'Français' });

    const set = await post('PUT', '/api/locales/fr/translations', {
      entries: { 'nav.home': 'Accueil' },
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({
      locale: 'fr',
      entries: { 'nav.home': 'Accueil' },
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    });
    const notTranslatable = await post('PUT', '/api/locales/fr/translations', {
      items: [{ itemId: 'post:hello', fields: { views: 3 } }],
    });
    expect(notTranslatable.statusCode).toBe(400);
    expect(notTranslatable.json().error).toMatch(/views is not a translatable field of post/);
    const wrongType = await post('PUT', '/api/locales/fr/translations', {
      items: [{ itemId: 'post:hello', fields: { title: 42 } }],
    });
    expect(wrongType.statusCode).toBe(400);
    expect(
      (await post('PUT', '/api/locales/fr/translations', { items: [{ itemId: 'post:nope', fields: {} }] }))
        .statusCode,
    ).toBe(400);
    const defaultFields = await post('PUT', '/api/locales/en/translations', {
      items: [{ itemId: 'post:hello', fields: { title: 'Hi' } }],
    });
    expect(defaultFields.statusCode).toBe(400);
    const got = await post('GET', '/api/locales/fr/translations?itemId=post:hello');
    expect(got.json().items).toEqual([
      expect.objectContaining({ itemId: 'post:hello', fields: { title: 'Bonjour' } }),
    ]);
    // a stale If-Match is refused
    const stale = await site.request({
      method: 'PUT',
      url: '/api/locales/fr/translations',
      headers: { 'if-match': '"stale"' },
      payload: { entries: { 'nav.home': 'Maison' } },
    });
    expect(stale.statusCode).toBe(409);
    // a null value deletes
    const cleared = await post('PUT', '/api/locales/fr/translations', {
      entries: { 'nav.home': null },
      items: [{ itemId: 'post:hello', fields: { title: null } }],
    });
    expect(cleared.json()).toMatchObject({ entries: {}, items: [] });

    // an item's translations go when it is deleted: a new item of the same id starts untranslated
    await post('PUT', '/api/locales/fr/translations', {
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    });
    expect((await post('DELETE', '/api/content/post/post:hello')).statusCode).toBe(204);
    expect((await post('GET', '/api/locales/fr/translations')).json().items).toEqual([]);
  });

  it('builds a French page with French values and hreflang links, falling back where a translation is missing', async () => {
    await site.createType({
      name: 'post',
      label: 'Post',
      nodeLabel: 'Post',
      keyField: 'slug',
      routePattern: '/{locale}/posts/{slug}/',
      fields: [
        { name: 'slug', type: 'string', required: true },
        { name: 'title', type: 'string', translatable: true },
        { name: 'body', type: 'text', translatable: true },
      ],
    });
    for (const [slug, title] of [
      ['hello', 'Hello'],
      ['second', 'Second'],
    ]) {
      expect(
        (await post('POST', '/api/content/post', { slug, title, body: `${title} body` })).statusCode,
      ).toBe(201);
    }
    const template = await post('POST', '/api/templates', {
      name: 'post',
      boundType: 'post',
      content:
        '<html lang="{{ page.locale }}"><head>{% hreflang %}</head><body><p class="nav">{{ "nav.home" | t }}</p><h1>{{ item.title }}</h1><p>{{ item.body }}</p></body></html>',
    });
    expect(template.statusCode, template.body).toBe(201);
    await post('POST', '/api/locales', { code: 'en', name: 'English' });
    await post('POST', '/api/locales', { code: 'fr', name: 'Français' });
    await post('PUT', '/api/locales/en/translations', { entries: { 'nav.home': 'Home' } });
    await post('PUT', '/api/locales/fr/translations', {
      entries: { 'nav.home': 'Accueil' },
      items: [{ itemId: 'post:hello', fields: { title: 'Bonjour' } }],
    });

    const built = await post('POST', '/api/build', { mode: 'full' });
    expect(built.statusCode).toBe(200);
    expect(built.json(), built.body).toMatchObject({ ok: true });
    const page = (url: string) => site.platform.app.inject({ method: 'GET', url });
    const fr = await page('/sites/intl/dev/fr/posts/hello/');
    expect(fr.statusCode).toBe(200);
    expect(fr.body).toContain('<html lang="fr">');
    expect(fr.body).toContain('<h1>Bonjour</h1>');
    // body has no French value: the English one
    expect(fr.body).toContain('<p>Hello body</p>');
    expect(fr.body).toContain('<p class="nav">Accueil</p>');
    expect(fr.body).toMatch(/<link rel="alternate" hreflang="en" href="[^"]*\/en\/posts\/hello\/">/);
    const en = await page('/sites/intl/dev/en/posts/hello/');
    expect(en.body).toContain('<h1>Hello</h1>');
    expect(en.body).toContain('<p class="nav">Home</p>');
    expect((await page('/sites/intl/dev/sitemaps/fr.xml')).body).toContain('/fr/posts/hello/');

    // a translation changes: the incremental build re-renders that locale's page
    await post('PUT', '/api/locales/fr/translations', {
      items: [{ itemId: 'post:hello', fields: { title: 'Salut' } }],
    });
    const again = await post('POST', '/api/build', { mode: 'incremental' });
    expect(again.json(), again.body).toMatchObject({ ok: true });
    expect((await page('/sites/intl/dev/fr/posts/hello/')).body).toContain('<h1>Salut</h1>');
    expect((await page('/sites/intl/dev/fr/posts/second/')).body).toContain('<h1>Second</h1>');
  });
});
