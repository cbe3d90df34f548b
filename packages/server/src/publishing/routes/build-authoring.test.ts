import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/**
 * Template authoring in server builds: site collections set through PUT /api/sites/{id},
 * a listing route paginated by a field's distinct values, `$name` parameters, the render reasons
 * of POST /api/build, and the undefined variables a validate build reports.
 */
describe('template authoring in server builds', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'notes' });
    await site.createType({
      name: 'note',
      label: 'Note',
      nodeLabel: 'Note',
      keyField: 'title',
      // notes have no pages of their own: the tag pages list them
      emitPages: false,
      fields: [
        { name: 'title', type: 'string', required: true },
        { name: 'tags', type: 'stringlist' },
      ],
    });
  });
  afterEach(async () => {
    await site.close();
  });

  const post = async (url: string, payload: Record<string, unknown>) => {
    const response = await site.request({ method: 'POST', url, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const page = async (path: string) =>
    (await site.platform.app.inject({ method: 'GET', url: `/sites/notes/dev${path}` })).body;

  it('builds pages per tag and a tag index from a site collection, and says why it re-rendered', async () => {
    const refused = await site.request({
      method: 'PUT',
      url: `/api/sites/${site.siteId}`,
      payload: { collections: { tags: { type: 'note', where: 'title ==' } } },
    });
    expect(refused.statusCode).toBe(400);
    const updated = await site.request({
      method: 'PUT',
      url: `/api/sites/${site.siteId}`,
      payload: { collections: { tags: { type: 'note', groupBy: 'tags' } } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().collections).toEqual({ tags: { type: 'note', groupBy: 'tags' } });

    await post('/api/templates', {
      name: 'tag-page',
      content:
        '<h1>{{ pagination.value }}</h1>{% for n in pagination.items %}<li>{{ n.title }}</li>{% endfor %}' +
        '{% list \'note\' where: "tags contains $t", t: pagination.value as same %}<p>{{ same_total }}</p>',
    });
    await post('/api/templates', {
      name: 'tag-index',
      content:
        '{% for g in site.collections.tags %}<a href="/tags/{{ g.slug }}/">{{ g.value }} ({{ g.count }})</a>{% endfor %}',
    });
    const noValue = await site.request({
      method: 'POST',
      url: '/api/routes',
      payload: {
        slug: 'bad',
        path: '/tags/',
        kind: 'listing',
        template: 'tag-page',
        paginate: { type: 'note', field: 'tags' },
      },
    });
    expect(noValue.statusCode).toBe(400);
    await post('/api/routes', {
      slug: 'tags',
      path: '/tags/{value}/',
      kind: 'listing',
      template: 'tag-page',
      paginate: { type: 'note', field: 'tags', size: 2, sort: 'title' },
    });
    await post('/api/routes', { slug: 'tag-index', path: '/tags/', kind: 'page', template: 'tag-index' });
    const first = await post('/api/content/note', { title: 'A', tags: ["rock'n'roll", 'jazz'] });
    await post('/api/content/note', { title: 'B', tags: ["rock'n'roll"] });
    await post('/api/content/note', { title: 'C', tags: ["rock'n'roll"] });
    await post('/api/content/note', { title: 'D', tags: ['solo'] });

    const full = await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    expect(full.statusCode, full.body).toBe(200);
    const result = full.json();
    expect(result).toMatchObject({ ok: true, carried: 0 });
    expect(result.reasons).toEqual({ full: result.rendered });
    const rock = await page('/tags/rock-n-roll/');
    expect(rock).toContain('<h1>rock&#39;n&#39;roll</h1><li>A</li><li>B</li><p>3</p>');
    expect(await page('/tags/rock-n-roll/page/2/')).toContain('<li>C</li>');
    expect(await page('/tags/jazz/')).toContain('<li>A</li><p>1</p>');
    expect(await page('/tags/')).toContain(
      '<a href="/tags/jazz/">jazz (1)</a><a href="/tags/rock-n-roll/">rock&#39;n&#39;roll (3)</a><a href="/tags/solo/">solo (1)</a>',
    );

    const edited = await site.request({
      method: 'PATCH',
      url: `/api/content/note/${encodeURIComponent(first.id)}`,
      payload: { fields: { tags: ['jazz', 'blues'] } },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const next = await site.request({
      method: 'POST',
      url: '/api/build?env=dev',
      payload: { mode: 'incremental' },
    });
    const incremental = next.json();
    expect(incremental.ok, next.body).toBe(true);
    expect(incremental.mode).toBe('incremental');
    expect(incremental.reasons['collection:tags']).toBe(1);
    // the pages the edit did not change are carried over: solo's, and jazz's (it still lists A,
    // and shows only its title, which did not change: dependencies are per field)
    expect(incremental.carried).toBe(2);
    const status = await site.request({ method: 'GET', url: `/api/build/status/${incremental.buildId}` });
    expect(status.json()).toMatchObject({
      rendered: incremental.rendered,
      carried: 2,
      reasons: incremental.reasons,
    });
    expect(await page('/tags/')).toContain('<a href="/tags/blues/">blues (1)</a>');
    expect(await page('/tags/blues/')).toContain('<li>A</li>');
    expect(await page('/tags/rock-n-roll/')).toContain('<li>B</li><li>C</li><p>2</p>');
    expect(await page('/tags/jazz/')).toContain('<li>A</li><p>1</p>');
  });

  it('reports undefined variables in a validate build', async () => {
    await post('/api/templates', {
      name: 'home',
      content: '<h1>{{ site.name }}</h1>\n<p>{{ site.tagline }}</p>',
    });
    await post('/api/routes', { slug: 'home', path: '/', kind: 'page', template: 'home' });
    const dry = await site.request({ method: 'POST', url: '/api/build?dryRun=1&env=dev' });
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().warnings).toContainEqual(
      expect.objectContaining({
        code: 'undefined_variable',
        template: 'home',
        line: 2,
        variable: 'site.tagline',
      }),
    );
  });
});
