import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

describe('site resource namespaces (transforms, routes, views, scripts, block types, widgets, page kits)', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite();
  });
  afterEach(async () => {
    await site.close();
  });

  it('creates a transform with an id derived from its name, lists, gets and patches it', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/transforms',
      payload: {
        name: 'Upper titles',
        event: 'beforeRender',
        kind: 'set-field',
        field: 'title',
        value: '{{ item.fields.title | upcase }}',
      },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ id: 'upper-titles', enabled: true, order: 0 });
    const patched = await site.request({
      method: 'PATCH',
      url: '/api/transforms/upper-titles',
      payload: { enabled: false },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: 'upper-titles', enabled: false, field: 'title' });
    const list = await site.request({ method: 'GET', url: '/api/transforms' });
    expect(list.json()).toHaveLength(1);
    const got = await site.request({ method: 'GET', url: '/api/transforms/upper-titles' });
    expect(got.json().enabled).toBe(false);
  });

  it('refuses an update that breaks the kind’s needs, and a duplicate create', async () => {
    await site.request({
      method: 'POST',
      url: '/api/transforms',
      payload: {
        id: 'tpl',
        name: 'T',
        event: 'beforeRender',
        kind: 'template',
        field: 'summary',
        template: 'summary',
      },
    });
    const broken = await site.request({
      method: 'PATCH',
      url: '/api/transforms/tpl',
      payload: { template: null },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error).toMatch(/template/);
    const again = await site.request({
      method: 'POST',
      url: '/api/transforms',
      payload: {
        id: 'tpl',
        name: 'T',
        event: 'beforeRender',
        kind: 'template',
        field: 'summary',
        template: 'summary',
      },
    });
    expect(again.statusCode).toBe(409);
    expect((await site.request({ method: 'GET', url: '/api/transforms/tpl' })).json().template).toBe(
      'summary',
    );
  });

  it('stores views and replaces their SEO settings', async () => {
    const view = await site.request({
      method: 'POST',
      url: '/api/views',
      payload: { name: 'posts', path: '/posts/', template: 'posts', paginate: { type: 'post', size: 10 } },
    });
    expect(view.statusCode).toBe(201);
    const seo = await site.request({
      method: 'PUT',
      url: '/api/views/posts/seo',
      payload: { title: 'All posts', noindex: false },
    });
    expect(seo.statusCode).toBe(200);
    expect((await site.request({ method: 'GET', url: '/api/views/posts/seo' })).json()).toEqual({
      title: 'All posts',
      noindex: false,
    });
  });

  it('answers 404 for unknown keys and 400 for bad bodies', async () => {
    expect((await site.request({ method: 'GET', url: '/api/routes/nope' })).statusCode).toBe(404);
    expect((await site.request({ method: 'GET', url: '/api/views/nope/seo' })).statusCode).toBe(404);
    const bad = await site.request({
      method: 'POST',
      url: '/api/routes',
      payload: { slug: 'x', path: 'no-slash' },
    });
    expect(bad.statusCode).toBe(400);
    const listing = {
      slug: 'news',
      path: '/news/',
      kind: 'listing',
      template: 'news',
      paginate: { type: 'post', where: 'title == two words', sort: '-date' },
    };
    const badWhere = await site.request({ method: 'POST', url: '/api/routes', payload: listing });
    expect(badWhere.statusCode).toBe(400);
    expect(badWhere.json().error).toContain('body.paginate.where');
    expect(badWhere.json().error).toContain('is not one value');
    const good = { ...listing, paginate: { ...listing.paginate, where: "title == 'two words'" } };
    expect((await site.request({ method: 'POST', url: '/api/routes', payload: good })).statusCode).toBe(201);
    const badSort = await site.request({
      method: 'PATCH',
      url: '/api/routes/news',
      payload: { paginate: { type: 'post', sort: 'date desc' } },
    });
    expect(badSort.statusCode).toBe(400);
    expect(badSort.json().error).toContain('paginate.sort');
    expect((await site.request({ method: 'GET', url: '/api/scripts' })).json()).toEqual([]);
    expect((await site.request({ method: 'GET', url: '/api/widgets' })).statusCode).toBe(200);
    expect((await site.request({ method: 'GET', url: '/api/block-types' })).statusCode).toBe(200);
    expect((await site.request({ method: 'GET', url: '/api/page-kits' })).statusCode).toBe(200);
  });
});
