import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-resources-');

describe('cms <resource> get and apply', () => {
  it('creates a missing view, leaves an equal one unchanged, updates a changed one; --dry-run writes nothing', async () => {
    const stored = new Map<string, Record<string, unknown>>([
      [
        'news',
        {
          name: 'news',
          path: '/news/',
          template: 'list',
          paginate: { type: 'post' },
          enabled: true,
          updatedAt: '2026-11-25T10:00:00.000Z',
        },
      ],
    ]);
    const notFound = { status: 404, body: { error: 'no', code: 'not_found' } };
    const server = await t.serve({
      'GET /api/views/news': () => ({ body: stored.get('news') }),
      'GET /api/views/blog': () => (stored.has('blog') ? { body: stored.get('blog') } : notFound),
      'POST /api/views': ({ body }) => {
        stored.set('blog', { enabled: true, ...(body as object) });
        return { status: 201, body: stored.get('blog') };
      },
      'PATCH /api/views/blog': ({ body }) => {
        stored.set('blog', { ...stored.get('blog'), ...(body as object) });
        return { body: stored.get('blog') };
      },
    });
    const views = [
      { name: 'news', path: '/news/', template: 'list', paginate: { type: 'post' } },
      { name: 'blog', path: '/blog/', template: 'list', paginate: { type: 'post' } },
    ];
    await writeFile(join(t.dir, 'views.json'), JSON.stringify({ views }));
    const dry = await t.cli(['views', 'apply', 'views.json', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('Dry run: would create 1, would update 0, 1 unchanged.\n');
    expect(dry.stderr).toContain('would create   view blog');
    expect(server.requests.filter((request) => request.method !== 'GET')).toEqual([]);

    expect((await t.cli(['views', 'apply', 'views.json'])).stdout).toBe(
      'Applied 2 view(s): 1 created, 0 updated, 1 unchanged.\n',
    );
    await writeFile(
      join(t.dir, 'views.json'),
      JSON.stringify([{ name: 'blog', path: '/journal/', template: 'list', paginate: { type: 'post' } }]),
    );
    expect((await t.cli(['views', 'apply', 'views.json'])).stdout).toBe(
      'Applied 1 view(s): 0 created, 1 updated, 0 unchanged.\n',
    );
    expect(server.hits('PATCH /api/views/blog')[0]?.body).toEqual({
      path: '/journal/',
      template: 'list',
      paginate: { type: 'post' },
    });

    const shown = await t.cli(['views', 'get', 'blog']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'blog', path: '/journal/' });
  });
});
