import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms routes apply', () => {
  it('creates a missing route and updates an existing one by slug', async () => {
    const route = { slug: 'home', path: '/', kind: 'listing', template: 'home', paginate: { type: 'post' } };
    let exists = false;
    const server = await t.serve({
      'GET /api/routes/home': () =>
        exists ? { body: route } : { status: 404, body: { error: 'no', code: 'not_found' } },
      'POST /api/routes': ({ body }) => {
        exists = true;
        return { status: 201, body };
      },
      'PATCH /api/routes/home': ({ body }) => ({ body: { ...route, ...(body as object) } }),
    });
    await writeFile(join(t.dir, 'routes.json'), JSON.stringify({ routes: [route] }));
    const first = await t.cli(['routes', 'apply', 'routes.json', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).routes).toEqual([{ slug: 'home', path: '/', action: 'created' }]);
    const second = await t.cli(['routes', 'apply', 'routes.json']);
    expect(second.stdout).toContain('Applied 1 route(s): 0 created, 0 updated, 1 unchanged.');
    expect(server.hits('PATCH /api/routes/home')).toEqual([]);
    await writeFile(join(t.dir, 'routes.json'), JSON.stringify({ routes: [{ ...route, title: 'Home' }] }));
    const dry = await t.cli(['routes', 'apply', 'routes.json', '--dry-run']);
    expect(dry.stdout).toBe('Dry run: would create 0, would update 1, 0 unchanged.\n');
    expect(server.hits('PATCH /api/routes/home')).toEqual([]);
    const third = await t.cli(['routes', 'apply', 'routes.json']);
    expect(third.stdout).toContain('Applied 1 route(s): 0 created, 1 updated, 0 unchanged.');
    expect(server.hits('PATCH /api/routes/home')[0]?.body).not.toHaveProperty('slug');
  });
});

describe('cms routes delete', () => {
  it('deletes a route, and the redirects to it with --cascade', async () => {
    const server = await t.serve({ 'DELETE /api/routes/about': () => ({ status: 204 }) });
    expect((await t.cli(['routes', 'delete', 'about'])).stdout).toBe('Deleted route about.\n');
    const cascaded = await t.cli(['routes', 'rm', 'about', '--cascade']);
    expect(cascaded.code, cascaded.stderr).toBe(0);
    expect(cascaded.stdout).toBe('Deleted route about and the redirects to it.\n');
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/routes/about',
      '/api/routes/about?cascade=1',
    ]);
  });
});
