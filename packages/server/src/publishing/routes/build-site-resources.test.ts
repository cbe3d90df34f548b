import { embeddingText, hashedBagOfWords } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

// Site resources in server builds: widgets, page kits, view SEO, similar items ranked by
// stored embeddings, the vector search index, and outputChannels.

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite({ slug: 'blog' });
});
afterEach(async () => {
  await site.close();
});

async function send(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown, status = [200, 201]) {
  const response = await site.request({ method, url, payload: payload as Record<string, unknown> });
  expect(status, `${method} ${url}: ${response.body}`).toContain(response.statusCode);
  return response;
}

async function build(payload: Record<string, unknown> = { mode: 'full' }) {
  const built = await send('POST', '/api/build?env=dev', payload, [200]);
  expect(built.json().ok, built.body).toBe(true);
  return built.json();
}

async function page(url: string) {
  return site.platform.app.inject({ method: 'GET', url: `/sites/blog/dev${url}` });
}

describe('server builds', () => {
  it('render widgets in page areas, page kits from templates, and view SEO in the head and sitemap', async () => {
    await seedBlog(site);
    await send('PUT', '/api/templates/post', {
      content:
        '<html><head><title>{{ item.title }}</title></head><body><h1>{{ item.title }}</h1>' +
        '<div class="side">{{ widgets.sidebar }}</div>{% pagekit "cta" title: item.title %}</body></html>',
    });
    await send('POST', '/api/widgets', {
      name: 'newsletter',
      area: 'sidebar',
      template: '<aside>{{ widget.settings.heading }}</aside>',
      settings: { heading: 'Subscribe' },
    });
    await send('POST', '/api/page-kits', {
      id: 'cta',
      name: 'Call to action',
      template: '<section class="cta">Read {{ slots.title }}</section>',
      slots: ['title'],
    });
    await send('POST', '/api/templates', {
      name: 'archive',
      content:
        '<html><head></head><body>{% for p in pagination.items %}{{ p.title }};{% endfor %}</body></html>',
    });
    await send('POST', '/api/views', {
      name: 'archive',
      path: '/archive/',
      template: 'archive',
      paginate: { type: 'post', sort: 'title' },
    });
    await send('PUT', '/api/views/archive/seo', {
      title: 'Post archive',
      description: 'All the posts',
      canonicalUrl: 'https://example.org/archive/',
    });

    await build();
    const hello = await page('/posts/hello-world/');
    expect(hello.body).toContain('<div class="side"><aside>Subscribe</aside></div>');
    expect(hello.body).toContain('<section class="cta">Read Hello world</section>');
    const archive = (await page('/archive/')).body;
    expect(archive).toContain('<title>Post archive</title>');
    expect(archive).toContain('<meta name="description" content="All the posts">');
    expect(archive).toContain('<link rel="canonical" href="https://example.org/archive/">');
    expect(archive).toContain('<meta property="og:title" content="Post archive">');
    expect(archive).toContain('Hello world;Second post;');
    expect((await page('/sitemap.xml')).body).toContain('<loc>https://example.org/archive/</loc>');

    // a widget change reaches the pages showing its area in the next incremental build
    await send('PATCH', '/api/widgets/newsletter', { settings: { heading: 'Join us' } });
    const next = await build({ mode: 'incremental' });
    expect(next.mode).toBe('incremental');
    expect((await page('/posts/hello-world/')).body).toContain('<aside>Join us</aside>');
  });

  it('rank {% similar %} by the stored embeddings, kept fresh when an item’s text changes, and emit a vector index', async () => {
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
    await site.createType(place);
    const records = [
      { name: 'Fiji', about: 'volcanic islands in the south pacific ocean' },
      { name: 'Tonga', about: 'a chain of volcanic islands in the pacific' },
      { name: 'Mongolia', about: 'landlocked steppe with long cold winters' },
    ];
    await send('POST', '/api/import/json', { typeName: 'place', records });
    await send('POST', '/api/templates', {
      name: 'place',
      boundType: 'place',
      content:
        '<h1>{{ item.name }}</h1>{% similar item limit: 2 as alike %}<ol>{% for a in alike %}<li>{{ a.name }}</li>{% endfor %}</ol>',
    });
    await send('PUT', `/api/sites/${site.siteId}`, { searchEmission: 'bm25+vector' });

    // before any embedding: nothing is similar
    await build();
    expect((await page('/place/fiji/')).body).toContain('<ol></ol>');

    await send('POST', '/api/maintenance/embeddings/materialize?type=place', {}, [200]);
    await build({ mode: 'incremental' });
    expect((await page('/place/fiji/')).body).toContain('<ol><li>Tonga</li><li>Mongolia</li></ol>');

    // Mongolia's text changes: its embedding follows, and so does the ranking
    await send('PATCH', '/api/content/place/place:mongolia', {
      about: 'volcanic islands of the south pacific ocean',
    });
    const stored = (await site.graph.getEmbeddings(['place:mongolia'])).get('place:mongolia')!;
    const expected = hashedBagOfWords(
      embeddingText({
        type: place as never,
        fields: { name: 'Mongolia', about: 'volcanic islands of the south pacific ocean' },
      }),
    );
    // stored as float32
    expect(stored).toHaveLength(expected.length);
    for (const [i, value] of stored.entries()) expect(value).toBeCloseTo(expected[i]!, 5);
    // a new item of the embedded type is embedded when written
    await send('POST', '/api/content/place', { name: 'Samoa', about: 'pacific islands' });
    expect(await site.graph.hasEmbedding('place:samoa')).toBe(true);

    await build({ mode: 'incremental' });
    expect((await page('/place/fiji/')).body).toContain('<ol><li>Mongolia</li>');

    const manifest = JSON.parse((await page('/search/manifest.json')).body);
    expect(manifest.vectors).toEqual(['vectors-0.json']);
    expect(manifest.embedding).toEqual({ provider: 'hashed-bow', dimensions: 256 });
    const vectors = JSON.parse((await page('/search/vectors-0.json')).body);
    expect(Object.keys(vectors).sort()).toEqual([
      'place:fiji',
      'place:mongolia',
      'place:samoa',
      'place:tonga',
    ]);
    expect(vectors['place:fiji']).toHaveLength(256);
  });

  it('emit only the outputChannels asked for', async () => {
    await seedBlog(site);
    await build({ mode: 'full', outputChannels: ['pages', 'search'] });
    expect((await page('/posts/hello-world/')).statusCode).toBe(200);
    expect((await page('/search/manifest.json')).statusCode).toBe(200);
    expect((await page('/sitemap.xml')).statusCode).toBe(404);

    await build({ mode: 'incremental' });
    expect((await page('/sitemap.xml')).body).toContain('/posts/hello-world/');

    const unknown = await send('POST', '/api/build?env=dev', { outputChannels: ['rss'] }, [400]);
    expect(unknown.json().code).toBe('validation_failed');
  });
});
