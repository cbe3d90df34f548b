import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';

const t = setUpCommandTests('cms-cli-');
const env = () => ({ XDG_CONFIG_HOME: join(t.dir, 'config') });
const site = {
  id: 'site:blog',
  name: 'Blog',
  slug: 'blog',
  graphName: 'g-1',
  createdAt: '2026-11-22T03:00:00.000Z',
};

describe('cms sites create --use', () => {
  it('creates the site and saves it as the default of the current profile', async () => {
    const server = await t.serve({
      'GET /api/health': () => ({
        body: { status: 'ok', platformGraph: 'platform', lastBuildAt: null, lastBuildId: null },
      }),
      'GET /api/access/my-sites': () => ({ body: [] }),
      'POST /api/sites': ({ body }) => ({
        status: 201,
        body: { ...site, ...(body as object), id: 'site:blog' },
      }),
      'GET /api/types': () => ({ body: [] }),
    });
    expect(
      (await runCli(['login', '--url', server.url, '--key', 'k'], { env: env(), cwd: t.dir })).code,
    ).toBe(0);
    const created = await runCli(
      ['sites', 'create', 'Blog', '--slug', 'blog', '--starter-kit', 'author', '--use'],
      {
        env: env(),
        cwd: t.dir,
      },
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Profile "default" now uses site:blog.');
    expect(server.hits('POST /api/sites')[0]?.body).toEqual({
      name: 'Blog',
      slug: 'blog',
      starterKit: 'author',
    });
    // Site commands now need no --site.
    const types = await runCli(['types', 'list', '--json'], { env: env(), cwd: t.dir });
    expect(types.code).toBe(0);
    expect(server.hits('GET /api/types')[0]?.headers['x-site-id']).toBe('site:blog');
  });

  it('refuses a starter kit that does not exist, before calling the server', async () => {
    const result = await runCli(
      ['sites', 'create', 'Blog', '--starter-kit', 'fancy', '--url', 'http://127.0.0.1:9'],
      {
        env: env(),
        cwd: t.dir,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("argument 'fancy' is invalid");
  });
});

describe('cms sites update --collections', () => {
  it('sends the site collections, and refuses ones whose where does not parse before calling the server', async () => {
    const server = await t.serve({
      'PUT /api/sites/site%3Ablog': ({ body }) => ({ body: { ...site, ...(body as object) } }),
    });
    const collections = { tags: { type: 'post', groupBy: 'tags' } };
    const ok = await t.cli(['sites', 'update', 'site:blog', '--collections', JSON.stringify(collections)]);
    expect(ok.code).toBe(0);
    expect(server.hits('PUT /api/sites/site%3Ablog')[0]!.body).toEqual({ collections });
    const bad = await t.cli([
      'sites',
      'update',
      'site:blog',
      '--collections',
      JSON.stringify({ tags: { type: 'post', where: 'title ==' } }),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--collections: tags.where');
    expect(server.hits('PUT /api/sites/site%3Ablog')).toHaveLength(1);
  });
});
