import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, createDirectoryTarget } from '@trelliscms/builder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

let site: ContentTestSite;

/** Posts with years and tags, authors who WROTE them, and a CITES edge between posts. */
async function seed(): Promise<void> {
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    routePattern: '/posts/{slug}/',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'title', type: 'string' },
      { name: 'year', type: 'number' },
      { name: 'tags', type: 'stringlist' },
    ],
    relationships: [{ name: 'cites', edgeLabel: 'CITES', target: 'post', kind: 'many-to-many' }],
  });
  await site.createType({
    name: 'author',
    label: 'Author',
    nodeLabel: 'Author',
    keyField: 'slug',
    routePattern: '/authors/{slug}/',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'name', type: 'string' },
    ],
    relationships: [{ name: 'posts', edgeLabel: 'WROTE', target: 'post', kind: 'many-to-many' }],
  });
  const imports = [
    {
      typeName: 'post',
      records: [
        { slug: 'alpha', title: 'Alpha', year: 2020, tags: ['graphs'] },
        { slug: 'beta', title: 'Beta', year: 2022, tags: ['web'] },
        { slug: 'gamma', title: 'Gamma', year: 2024, tags: ['graphs', 'web'] },
      ],
    },
    {
      typeName: 'author',
      records: [
        { slug: 'ann', name: 'Ann' },
        { slug: 'bob', name: 'Bob' },
      ],
    },
  ];
  for (const payload of imports) {
    const res = await site.request({ method: 'POST', url: '/api/import/json', payload });
    expect(res.statusCode, res.body).toBe(200);
  }
  const edges = await site.request({
    method: 'POST',
    url: '/api/import/edges',
    payload: {
      edges: [
        { from: 'author:ann', edge: 'WROTE', to: 'post:alpha' },
        { from: 'author:ann', edge: 'WROTE', to: 'post:gamma' },
        { from: 'author:bob', edge: 'WROTE', to: 'post:beta' },
        { from: 'post:alpha', edge: 'CITES', to: 'post:beta' },
      ],
    },
  });
  expect(edges.statusCode, edges.body).toBe(200);
  expect(edges.json(), edges.body).toMatchObject({ failed: 0 });
}

const recent = {
  name: 'recent-posts',
  description: 'Posts since a year, with a tag',
  query: {
    type: 'post',
    where: 'year >= $since and tags contains $tag',
    sort: '-year',
    select: ['title', 'year'],
  },
  params: { since: { type: 'number', required: true }, tag: { type: 'string' } },
};

beforeEach(async () => {
  site = await createContentTestSite();
  await seed();
});
afterEach(async () => {
  await site.close();
});

describe('saved queries (/api/queries)', () => {
  it('stores a query and runs it with typed parameters: rows, total and paging', async () => {
    const created = await site.request({ method: 'POST', url: '/api/queries', payload: recent });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: 'recent-posts', query: recent.query });

    const run = await site.request({
      method: 'POST',
      url: '/api/queries/recent-posts/run',
      payload: { params: { since: 2021 } },
    });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({
      ok: true,
      name: 'recent-posts',
      total: 2,
      count: 2,
      limit: 100,
      offset: 0,
      items: [
        { id: 'post:gamma', type: 'post', title: 'Gamma', year: 2024 },
        { id: 'post:beta', type: 'post', title: 'Beta', year: 2022 },
      ],
    });
    // a parameter given as text of its type (as the CLI sends it), an optional one, paging
    const paged = await site.request({
      method: 'POST',
      url: '/api/queries/recent-posts/run',
      payload: { params: { since: '2019', tag: 'graphs' }, limit: 1, offset: 1 },
    });
    expect(paged.json()).toMatchObject({ total: 2, count: 1, items: [{ id: 'post:alpha' }] });
    // a value holding the language's syntax is one value, never query text
    const hostile = await site.request({
      method: 'POST',
      url: '/api/queries/recent-posts/run',
      payload: { params: { since: 0, tag: "web' and year != 'x" } },
    });
    expect(hostile.json()).toMatchObject({ total: 0 });

    // a query whose parameters all have defaults or are optional runs without a body
    await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: { name: 'all-posts', query: { type: 'post', sort: 'year', select: ['year'] } },
    });
    const bare = await site.request({ method: 'POST', url: '/api/queries/all-posts/run' });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().items.map((row: { year: number }) => row.year)).toEqual([2020, 2022, 2024]);

    const list = await site.request({ method: 'GET', url: '/api/queries' });
    expect(list.json().map((q: { name: string }) => q.name)).toEqual(['all-posts', 'recent-posts']);
  });

  it('follows edges in either direction, and answers a change of the content at once', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: {
        name: 'authors-of-tag',
        query: {
          type: 'post',
          where: 'tags contains $tag',
          follow: [{ edge: 'WROTE', direction: 'in', type: 'author', sort: 'name' }],
          select: ['name'],
        },
        params: { tag: { type: 'string', default: 'web' } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const names = async (payload: Record<string, unknown>) => {
      const res = await site.request({ method: 'POST', url: '/api/queries/authors-of-tag/run', payload });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((row: { name: string }) => row.name);
    };
    expect(await names({})).toEqual(['Ann', 'Bob']);
    expect(await names({ params: { tag: 'graphs' } })).toEqual(['Ann']);
    // two hops out along CITES from alpha
    await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: {
        name: 'cited',
        query: { type: 'post', where: "slug == 'alpha'", follow: [{ edge: 'CITES', depth: 2 }] },
      },
    });
    const cited = await site.request({ method: 'POST', url: '/api/queries/cited/run', payload: {} });
    expect(cited.json().items.map((row: { id: string }) => row.id)).toEqual(['post:beta']);
    // an edit shows in the next run
    const edited = await site.request({
      method: 'PATCH',
      url: '/api/content/author/author:bob',
      payload: { fields: { name: 'Aaron' } },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(await names({})).toEqual(['Aaron', 'Ann']);
  });

  it('answers 400 with the reason for a query or parameters that do not fit, 404 for an unknown query', async () => {
    const bad = async (payload: Record<string, unknown>) => {
      const res = await site.request({ method: 'POST', url: '/api/queries', payload });
      expect(res.statusCode, res.body).toBe(400);
      return res.json() as { error: string; code: string };
    };
    expect(await bad({ name: 'x', query: { type: 'movie' } })).toMatchObject({
      code: 'invalid_query',
      error: expect.stringContaining('`movie` is not a content type of the site'),
    });
    expect((await bad({ name: 'x', query: { type: 'post', where: 'colour == red' } })).error).toContain(
      '`colour` is not a field of post',
    );
    expect((await bad({ name: 'x', query: { type: 'post', where: 'year contains 2' } })).error).toContain(
      'cannot use contains on a number',
    );
    expect(await bad({ name: 'x', query: { type: 'post', where: 'year > $since' } })).toMatchObject({
      code: 'validation_failed',
      error: expect.stringContaining('$since is not a declared parameter'),
    });
    expect((await bad({ name: 'x', query: { type: 'post', select: ['nope'] } })).error).toContain(
      'select: `nope` is not a field of post',
    );
    expect((await site.request({ method: 'GET', url: '/api/queries/x' })).statusCode).toBe(404);

    await site.request({ method: 'POST', url: '/api/queries', payload: recent });
    const run = (payload: Record<string, unknown>) =>
      site.request({ method: 'POST', url: '/api/queries/recent-posts/run', payload });
    const missing = await run({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'invalid_query_params',
      error: expect.stringContaining('`since` is required (a number)'),
    });
    const wrongType = await run({ params: { since: 'soon', extra: 1 } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error).toContain('`since` must be a number, not "soon"');
    expect(wrongType.json().error).toContain('`extra` is not a parameter of the query');
    expect((await run({ params: { since: { $gt: 1 } } })).statusCode).toBe(400);
    const unknown = await site.request({ method: 'POST', url: '/api/queries/nope/run', payload: {} });
    expect(unknown.statusCode).toBe(404);

    // an update is checked as a whole: a where using a parameter that is not declared
    const patched = await site.request({
      method: 'PATCH',
      url: '/api/queries/recent-posts',
      payload: { params: { since: { type: 'number' } } },
    });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error).toContain('$tag is not a declared parameter');
    const retyped = await site.request({
      method: 'PUT',
      url: '/api/queries/recent-posts',
      payload: { query: { type: 'author', where: 'name == $tag and year > $since' } },
    });
    expect(retyped.statusCode).toBe(400);
    expect(retyped.json()).toMatchObject({ code: 'invalid_query' });
    expect(retyped.json().error).toContain('`year` is not a field of author');
    // still the stored query, which deletes like the other resources
    expect((await run({ params: { since: 2023 } })).json().total).toBe(1);
    expect((await site.request({ method: 'DELETE', url: '/api/queries/recent-posts' })).statusCode).toBe(204);
    expect((await run({ params: { since: 2023 } })).statusCode).toBe(404);
  });

  it('shows the same rows in a page of a server build and of cms-build, and an incremental build follows them', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: {
        name: 'posts-of-author',
        query: {
          type: 'author',
          where: 'slug == $author',
          follow: [{ edge: 'WROTE', direction: 'out', type: 'post', sort: '-year' }],
          select: ['title', 'year'],
        },
        params: { author: { type: 'string', required: true } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const templates = [
      { name: 'post', boundType: 'post', content: '<h1>{{ item.title }}</h1>' },
      {
        name: 'author',
        boundType: 'author',
        content:
          "<h1>{{ item.name }}</h1>{% query 'posts-of-author' author: item.slug as posts %}<ol>{% for p in posts %}<li>{{ p.id }} {{ p.title }} {{ p.year }} {{ p.url }}</li>{% endfor %}</ol><p>{{ posts_total }} posts</p>",
      },
    ];
    for (const payload of templates) {
      const res = await site.request({ method: 'POST', url: '/api/templates', payload });
      expect(res.statusCode, res.body).toBe(201);
    }
    const runRows = async () => {
      const res = await site.request({
        method: 'POST',
        url: '/api/queries/posts-of-author/run',
        payload: { params: { author: 'ann' } },
      });
      return res.json().items.map((row: Record<string, unknown>) => `${row.id} ${row.title} ${row.year}`);
    };
    const pageRows = async () => {
      const page = await site.platform.app.inject({
        method: 'GET',
        url: '/sites/content-test/dev/authors/ann/',
      });
      expect(page.statusCode).toBe(200);
      return [...page.body.matchAll(/<li>(\S+ \S+ \S+) (\S+)<\/li>/g)].map((match) => match[1]);
    };
    const buildDev = async (mode: string) => {
      const res = await site.request({ method: 'POST', url: '/api/build', payload: { env: 'dev', mode } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().ok, res.body).toBe(true);
      return res.json();
    };

    await buildDev('full');
    expect(await runRows()).toEqual(['post:gamma Gamma 2024', 'post:alpha Alpha 2020']);
    expect(await pageRows()).toEqual(await runRows());
    const served = (
      await site.platform.app.inject({ method: 'GET', url: '/sites/content-test/dev/authors/ann/' })
    ).body;
    expect(served).toContain('post:gamma Gamma 2024 /posts/gamma/');

    // cms-build from the export (the snapshot carries the saved queries) renders the same page
    const exported = await site.request({ method: 'GET', url: '/api/export' });
    expect(exported.json().queries.map((query: { name: string }) => query.name)).toEqual(['posts-of-author']);
    const dir = await mkdtemp(join(tmpdir(), 'trellis-query-build-'));
    try {
      const target = createDirectoryTarget({ root: dir });
      const result = await build({ source: exported.json(), target, env: 'dev', mode: 'full', workers: 1 });
      expect(result.ok, JSON.stringify(result.errors)).toBe(true);
      const local = await readFile(join(dir, 'current', 'authors', 'ann', 'index.html'), 'utf8');
      const section = (html: string) => /<ol>.*<\/ol><p>\d+ posts<\/p>/s.exec(html)?.[0];
      expect(section(local)).toBeDefined();
      expect(section(local)).toBe(section(served));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // an edit that changes the result: the next incremental build shows it
    const edited = await site.request({
      method: 'PATCH',
      url: '/api/content/post/post:alpha',
      payload: { fields: { year: 2025 } },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await buildDev('incremental')).mode).toBe('incremental');
    expect(await pageRows()).toEqual(['post:alpha Alpha 2025', 'post:gamma Gamma 2024']);
    expect(await pageRows()).toEqual(await runRows());
  });
});
