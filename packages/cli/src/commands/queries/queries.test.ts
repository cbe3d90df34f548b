import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const saved = {
  name: 'recent-posts',
  query: { type: 'post', where: 'year >= $since', sort: '-year', select: ['title'] },
  params: { since: { type: 'number', required: true } },
};

describe('cms queries', () => {
  it('runs a saved query with --param values and shows its rows', async () => {
    const server = await t.serve({
      'POST /api/queries/recent-posts/run': () => ({
        body: {
          ok: true,
          name: 'recent-posts',
          items: [{ id: 'post:gamma', type: 'post', title: 'Gamma' }],
          count: 1,
          total: 3,
          limit: 1,
          offset: 0,
          tookMs: 2,
        },
      }),
    });
    const run = await t.cli([
      'queries',
      'run',
      'recent-posts',
      '--param',
      'since=2021',
      '--param',
      'tag=a=b',
      '--limit',
      '1',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('post:gamma');
    expect(run.stdout).toContain('Gamma');
    expect(run.stdout).toContain('1 of 3 row(s)');
    expect(server.hits('POST /api/queries/recent-posts/run')[0]?.body).toEqual({
      params: { since: '2021', tag: 'a=b' },
      limit: 1,
    });
    const bad = await t.cli(['queries', 'run', 'recent-posts', '--param', 'since']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('write name=value');
  });

  it('creates from a JSON file, lists, shows, updates and removes', async () => {
    let stored: Record<string, unknown> | null = null;
    const server = await t.serve({
      'POST /api/queries': ({ body }) => {
        stored = body as Record<string, unknown>;
        return { status: 201, body };
      },
      'GET /api/queries': () => ({ body: stored ? [stored] : [] }),
      'GET /api/queries/recent-posts': () => ({ body: stored }),
      'PATCH /api/queries/recent-posts': ({ body }) => ({ body: { ...stored, ...(body as object) } }),
      'DELETE /api/queries/recent-posts': () => ({ status: 204 }),
    });
    await writeFile(join(t.dir, 'q.json'), JSON.stringify(saved));
    const created = await t.cli(['queries', 'create', 'q.json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('Created saved query recent-posts.\n');
    const list = await t.cli(['queries', 'list']);
    expect(list.stdout).toContain('recent-posts');
    expect(list.stdout).toContain('since');
    const shown = await t.cli(['queries', 'show', 'recent-posts', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'recent-posts', query: { type: 'post' } });
    const updated = await t.cli(['queries', 'update', 'recent-posts', 'q.json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(server.hits('PATCH /api/queries/recent-posts')[0]?.body).not.toHaveProperty('name');
    const removed = await t.cli(['queries', 'rm', 'recent-posts']);
    expect(removed.stdout).toBe('Deleted saved query recent-posts.\n');
  });

  it('has examples in its help', async () => {
    await t.serve({});
    const help = await t.cli(['queries', 'run', '--help']);
    expect(help.stdout).toContain('$ cms queries run recent-posts --param since=2021');
  });
});
