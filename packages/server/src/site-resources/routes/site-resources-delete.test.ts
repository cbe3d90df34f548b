import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

type HolderView = { kind: string; id: string; cascades: boolean };
const named = (holders: HolderView[]) => holders.map((holder) => `${holder.kind} ${holder.id}`).sort();

/** One resource of each namespace that nothing holds: [base, key, create body]. */
const FREE: Array<[string, string, Record<string, unknown>]> = [
  [
    'transforms',
    't',
    { id: 't', name: 'T', event: 'beforeRender', kind: 'set-field', field: 'title', value: 'x' },
  ],
  ['routes', 'r', { slug: 'r', path: '/r/', kind: 'redirect', redirectTo: '/' }],
  ['views', 'v', { name: 'v', path: '/v/', template: 'list', paginate: { type: 'post' } }],
  ['scripts', 's', { name: 's', source: 'return item;' }],
  ['block-types', 'b', { name: 'b', label: 'B', fields: [] }],
  ['widgets', 'w', { name: 'w', area: 'sidebar', template: 'hi' }],
  ['page-kits', 'kit', { name: 'Kit', template: '<p></p>' }],
];

describe('DELETE on the other site resources (transforms, routes, views, scripts, block types, widgets, page kits)', () => {
  let site: ContentTestSite;
  const auditLength = async () => (await site.graph.auditRecords()).length;
  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await site.request({ method: 'POST', url, payload });
    expect(response.statusCode, response.body).toBe(201);
  };

  beforeEach(async () => {
    site = await createContentTestSite();
  });
  afterEach(async () => {
    await site.close();
  });

  it('deletes one of each namespace that nothing holds: 204 with no body, then 404, audited', async () => {
    for (const [base, key, body] of FREE) {
      await post(`/api/${base}`, body);
      const deleted = await site.request({ method: 'DELETE', url: `/api/${base}/${key}` });
      expect(deleted.statusCode, base).toBe(204);
      expect(deleted.body).toBe('');
      expect((await site.request({ method: 'GET', url: `/api/${base}/${key}` })).statusCode, base).toBe(404);
      expect((await site.graph.auditRecords()).at(-1), base).toMatchObject({ action: `${base}.delete` });
      const again = await site.request({ method: 'DELETE', url: `/api/${base}/${key}` });
      expect(again.statusCode, base).toBe(404);
    }
  });

  it('refuses a route or view a redirect points at; ?cascade=1 deletes the redirects with it', async () => {
    await post('/api/routes', { slug: 'about', path: '/about/', kind: 'page', template: 'page' });
    await post('/api/routes', {
      slug: 'old-about',
      path: '/about-us/',
      kind: 'redirect',
      redirectTo: '/about',
    });
    await post('/api/views', { name: 'news', path: '/news/', template: 'list', paginate: { type: 'post' } });
    await post('/api/routes', {
      slug: 'old-news-2',
      path: '/old/news/2/',
      kind: 'redirect',
      redirectTo: '/news/page/2/',
    });
    await post('/api/routes', {
      slug: 'elsewhere',
      path: '/x/',
      kind: 'redirect',
      redirectTo: '/newsletter/',
    });
    const before = await auditLength();
    const route = await site.request({ method: 'DELETE', url: '/api/routes/about' });
    expect(route.statusCode).toBe(409);
    expect(route.json()).toMatchObject({ code: 'in_use', holderCount: 1 });
    expect(route.json().holders).toEqual([
      { kind: 'route', id: 'old-about', detail: 'redirects /about-us/ to /about', cascades: true },
    ]);
    const view = await site.request({ method: 'DELETE', url: '/api/views/news' });
    expect(view.statusCode).toBe(409);
    expect(named(view.json().holders)).toEqual(['route old-news-2']);
    expect(await auditLength()).toBe(before);

    const cascaded = await site.request({ method: 'DELETE', url: '/api/routes/about?cascade=1' });
    expect(cascaded.statusCode).toBe(204);
    for (const slug of ['about', 'old-about']) {
      expect((await site.request({ method: 'GET', url: `/api/routes/${slug}` })).statusCode).toBe(404);
    }
    const written = (await site.graph.auditRecords()).slice(before);
    expect(written.map((record) => `${record.action} ${record.target}`)).toEqual([
      'routes.delete route:old-about',
      'routes.delete route:about',
    ]);
    expect(written[0]?.data).toEqual({ cascadeOf: 'route:about' });
    // A redirect itself is held by nothing pointing at its own path.
    expect((await site.request({ method: 'DELETE', url: '/api/routes/elsewhere' })).statusCode).toBe(204);
  });

  it('refuses a script a transform runs; ?cascade=1 deletes the transform with it', async () => {
    await post('/api/scripts', { name: 'stamp', source: 'return item;' });
    await post('/api/transforms', {
      id: 'run-stamp',
      name: 'Run stamp',
      event: 'beforeSave',
      kind: 'script',
      script: 'stamp',
    });
    const refused = await site.request({ method: 'DELETE', url: '/api/scripts/stamp' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().holders).toEqual([
      { kind: 'transform', id: 'run-stamp', detail: 'runs script stamp', cascades: true },
    ]);
    expect(refused.json().hint).toContain('?cascade=1');
    const cascaded = await site.request({ method: 'DELETE', url: '/api/scripts/stamp?cascade=1' });
    expect(cascaded.statusCode).toBe(204);
    expect((await site.request({ method: 'GET', url: '/api/transforms/run-stamp' })).statusCode).toBe(404);
  });

  it('refuses a block type item bodies or page kits use, even with ?cascade=1', async () => {
    await site.createType({
      name: 'page',
      label: 'Page',
      nodeLabel: 'Page',
      keyField: 'title',
      fields: [{ name: 'title', type: 'string', required: true }],
    });
    await post('/api/content/page', { title: 'Home' });
    await post('/api/block-types', {
      name: 'hero',
      label: 'Hero',
      fields: [{ name: 'heading', type: 'string' }],
    });
    await post('/api/content/page/page:home/blocks', { blockType: 'hero', fields: { heading: 'Hi' } });
    await post('/api/page-kits', { name: 'Landing', blocks: [{ type: 'hero', data: {} }] });
    const before = await auditLength();
    for (const url of ['/api/block-types/hero', '/api/block-types/hero?cascade=1']) {
      const refused = await site.request({ method: 'DELETE', url });
      expect(refused.statusCode, url).toBe(409);
      expect(named(refused.json().holders)).toEqual(['item page:home', 'page-kit landing']);
      expect(refused.json().hint).not.toContain('?cascade=1');
    }
    expect(await auditLength()).toBe(before);
    expect((await site.request({ method: 'GET', url: '/api/block-types/hero' })).statusCode).toBe(200);
  });
});
