import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../io/front-matter';
import { setUpCommandTests } from '../../test-support/command-test';
import { planEleventyImport } from './eleventy';

const t = setUpCommandTests();

/** A small Eleventy blog: three posts, a page per tag, a paginated listing of `collections.post`, a layout. */
const BLOG: Record<string, string> = {
  'posts/first-post.md': `---
title: "First: a post"
date: 2024-01-05
tags: [post, news]
author: Ada
layout: layout.liquid
---
The **first** post.
`,
  'posts/second.md': `---
title: Second
date: 2024-02-01T10:00:00+02:00
tags:
  - post
  - "rock'n'roll"
draft: false
---
Second body.
`,
  'posts/third/index.md': `---
title: Third
date: 2024-03-01
tags: post
---
Third body.
`,
  'tags.liquid': `---
pagination:
  data: collections
  size: 1
  alias: tag
  filter:
    - all
    - post
permalink: /tags/{{ tag | slugify }}/
---
{% for post in collections[tag] %}{{ post.data.title }}{% endfor %}
`,
  'blog.liquid': `---
title: Blog
pagination:
  data: collections.post
  size: 10
permalink: "/blog/{% if pagination.pageNumber > 0 %}page-{{ pagination.pageNumber }}/{% endif %}"
---
{% for post in pagination.items %}{{ post.data.title }}{% endfor %}
`,
  '_includes/layout.liquid': '<html>{{ content }}</html>',
  'node_modules/x/readme.md': '---\ntitle: no\n---\n',
};

async function writeBlog(dir: string): Promise<void> {
  for (const [path, content] of Object.entries(BLOG)) {
    await mkdir(join(dir, 'blog', path, '..'), { recursive: true });
    await writeFile(join(dir, 'blog', path), content);
  }
}

describe('front matter', () => {
  it('reads maps, nested maps, block and flow lists, quoted and plain scalars', () => {
    const { data, body } = parseFrontMatter(BLOG['tags.liquid']!);
    expect(data).toEqual({
      pagination: { data: 'collections', size: 1, alias: 'tag', filter: ['all', 'post'] },
      permalink: '/tags/{{ tag | slugify }}/',
    });
    expect(body.trim()).toBe('{% for post in collections[tag] %}{{ post.data.title }}{% endfor %}');
    expect(parseFrontMatter(BLOG['posts/second.md']!).data).toEqual({
      title: 'Second',
      date: '2024-02-01T10:00:00+02:00',
      tags: ['post', "rock'n'roll"],
      draft: false,
    });
    expect(parseFrontMatter('no front matter').data).toEqual({});
  });
});

describe('cms import eleventy', () => {
  it('plans items, collections and pagination from the files', () => {
    const files = Object.entries(BLOG)
      .filter(([path]) => !path.startsWith('_') && !path.startsWith('node_modules'))
      .map(([path, content]) => ({ path, content }));
    const plan = planEleventyImport({ files, type: 'post' });
    expect(plan.records.map((r) => r.id)).toEqual(['post:first-post', 'post:second', 'post:third']);
    expect(plan.records[0]).toEqual({
      id: 'post:first-post',
      title: 'First: a post',
      date: '2024-01-05',
      tags: ['post', 'news'],
      author: 'Ada',
      body: 'The **first** post.',
    });
    expect(plan.routePattern).toBe('/posts/{slug}/');
    expect(plan.routes.map(({ path, paginate }) => ({ path, paginate }))).toEqual([
      { path: '/tags/{value}/', paginate: { type: 'post', field: 'tags', size: 100, sort: '-date' } },
      { path: '/blog/', paginate: { type: 'post', size: 10, sort: '-date', where: "tags contains 'post'" } },
    ]);
    expect(plan.collections).toEqual({
      all: { type: 'post', sort: 'date' },
      news: { type: 'post', where: "tags contains 'news'", sort: 'date' },
      post: { type: 'post', where: "tags contains 'post'", sort: 'date' },
      tags: { type: 'post', groupBy: 'tags', sort: '-date' },
    });
    expect(plan.warnings).toEqual([
      `tag "rock'n'roll" is not a Liquid name: no collections.rock'n'roll (the tags collection groups it)`,
    ]);
  });

  it('creates the type, templates, items, routes and site collections through the API', async () => {
    await writeBlog(t.dir);
    const site = {
      id: 'site:blog',
      name: 'Blog',
      slug: 'blog',
      graphName: 'g',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const server = await t.serve({
      'GET /api/types/post': () => ({ status: 404, body: { error: 'no type post', code: 'not_found' } }),
      'POST /api/types': ({ body }) => ({
        status: 201,
        body: { ...(body as object), createdAt: site.createdAt },
      }),
      'GET /api/templates': () => ({ body: [] }),
      'POST /api/templates': ({ body }) => ({
        status: 201,
        body: { ...(body as object), version: 1, enabled: true, boundType: '' },
      }),
      'POST /api/import/json': ({ body }) => {
        const count = (body as { records: unknown[] }).records.length;
        return {
          body: {
            ok: true,
            totalRecords: count,
            created: count,
            updated: 0,
            unchanged: 0,
            skipped: 0,
            failed: 0,
            batches: 1,
            tookMs: 1,
            recordsPerSec: 1,
            errors: [],
            gatewayTimeoutWarning: null,
          },
        };
      },
      'GET /api/routes/eleventy-tags': () => ({
        status: 404,
        body: { error: 'no route', code: 'not_found' },
      }),
      'GET /api/routes/eleventy-blog': () => ({
        status: 404,
        body: { error: 'no route', code: 'not_found' },
      }),
      'POST /api/routes': ({ body }) => ({ status: 201, body }),
      'GET /api/sites/site%3Ablog': () => ({ body: site }),
      'PUT /api/sites/site%3Ablog': ({ body }) => ({ body: { ...site, ...(body as object) } }),
    });
    const result = await t.cli(['import', 'eleventy', 'blog']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const type = server.hits('POST /api/types')[0]!.body as {
      fields: Array<{ name: string; type: string }>;
      routePattern: string;
    };
    expect(type.routePattern).toBe('/posts/{slug}/');
    expect(type.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'tags', type: 'stringlist' }),
        expect.objectContaining({ name: 'body', type: 'markdown' }),
        expect.objectContaining({ name: 'draft', type: 'boolean' }),
      ]),
    );
    expect(server.hits('POST /api/templates').map((hit) => (hit.body as { name: string }).name)).toEqual([
      'post',
      '_eleventy-tag',
      '_eleventy-list',
    ]);
    const records = (server.hits('POST /api/import/json')[0]!.body as { records: Array<{ id: string }> })
      .records;
    expect(records.map((r) => r.id)).toEqual(['post:first-post', 'post:second', 'post:third']);
    // files are read in name order: blog.liquid, then tags.liquid
    expect(server.hits('POST /api/routes').map((hit) => (hit.body as { path: string }).path)).toEqual([
      '/blog/',
      '/tags/{value}/',
    ]);
    const update = server.hits('PUT /api/sites/site%3Ablog')[0]!.body as {
      collections: Record<string, unknown>;
    };
    expect(Object.keys(update.collections).sort()).toEqual(['all', 'news', 'post', 'tags']);
    expect(result.stdout).toContain('imported 3 item(s) of type post at /posts/{slug}/');
    expect(result.stdout).toContain('route /tags/{value}/ (from tags.liquid)');
  });

  it('writes nothing with --dry-run', async () => {
    await writeBlog(t.dir);
    const server = await t.serve({});
    const result = await t.cli(['import', 'eleventy', 'blog', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('would import 3 item(s) of type post');
    expect(server.requests).toEqual([]);
  });

  it('adds the missing fields, optional, to a type that exists', async () => {
    await writeBlog(t.dir);
    const type = {
      name: 'post',
      label: 'Post',
      nodeLabel: 'Post',
      keyField: 'title',
      fields: [
        { name: 'title', type: 'string', required: true },
        { name: 'body', type: 'markdown' },
      ],
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const server = await t.serve({
      'GET /api/types/post': () => ({ body: type }),
      'PATCH /api/types/post': ({ body }) => ({ body: { ...type, ...(body as object) } }),
    });
    // stops at the next call (templates): what matters is the type's change
    await t.cli(['import', 'eleventy', 'blog']);
    const patch = server.hits('PATCH /api/types/post')[0]!.body as {
      fields: Array<{ name: string; required?: boolean }>;
    };
    expect(patch.fields.map((field) => field.name)).toEqual([
      'title',
      'body',
      'date',
      'tags',
      'author',
      'draft',
    ]);
    expect(patch.fields.slice(2).every((field) => field.required === false)).toBe(true);
  });
});
