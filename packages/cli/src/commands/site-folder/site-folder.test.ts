import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SeenRequest } from '@trelliscms/sdk/test-support';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';
import { SCAFFOLD } from './init';
import { orderByDependency } from './push';
import { isSubset } from './site-folder';

const t = setUpCommandTests('cms-folder-');

/** A fake site: types, templates and routes kept in maps, as the server would. */
function fakeSite() {
  const types = new Map<string, Record<string, unknown>>();
  const templates = new Map<string, Record<string, unknown>>();
  const routes = new Map<string, Record<string, unknown>>();
  const notFound = { status: 404, body: { error: 'not found', code: 'not_found' } };
  const name = (request: SeenRequest) => decodeURIComponent(request.url.split('?')[0]!.split('/').pop()!);
  const withDefaults = (type: Record<string, unknown>): Record<string, unknown> => ({
    ...type,
    fields: (type.fields as Record<string, unknown>[]).map((field) => ({ required: false, ...field })),
  });
  return {
    types,
    templates,
    routes,
    handlers: {
      'GET /api/types': () => ({
        body: [...types.values()].map((type) => ({
          name: type.name,
          label: type.label,
          nodeLabel: type.nodeLabel,
          fieldCount: 0,
          relationshipCount: 0,
          allowedChildren: [],
          emitPages: true,
          routePattern: null,
          fields: [],
        })),
      }),
      'GET /api/types/post': (request: SeenRequest) =>
        types.has(name(request)) ? { body: types.get(name(request)) } : notFound,
      'POST /api/types': ({ body }: SeenRequest) => {
        const type = withDefaults(body as Record<string, unknown>);
        types.set(type.name as string, type);
        return { status: 201, body: type };
      },
      'PATCH /api/types/post': (request: SeenRequest) => {
        const type = withDefaults({ ...types.get(name(request)), ...(request.body as object) });
        types.set(name(request), type);
        return { body: type };
      },
      'GET /api/templates': () => ({ body: [...templates.values()] }),
      'POST /api/templates': ({ body }: SeenRequest) => {
        const template = { boundType: '', enabled: true, ...(body as object), version: 1 } as Record<
          string,
          unknown
        >;
        templates.set(template.name as string, template);
        return { status: 201, body: template };
      },
      'PUT /api/templates/post': (request: SeenRequest) => {
        const current = templates.get('post')!;
        const template = {
          ...current,
          ...(request.body as object),
          version: (current.version as number) + 1,
        };
        templates.set('post', template);
        return { body: template };
      },
      'GET /api/routes': () => ({ body: [...routes.values()] }),
      'GET /api/routes/home': () => (routes.has('home') ? { body: routes.get('home') } : notFound),
      'POST /api/routes': ({ body }: SeenRequest) => {
        const route = { enabled: true, ...(body as object), createdAt: '2026-11-25T10:00:00.000Z' };
        routes.set('home', route);
        return { status: 201, body: route };
      },
    },
  };
}

const writes = (requests: SeenRequest[]) =>
  requests.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.url}`);

describe('cms init, push and pull', () => {
  it('scaffolds a folder bound to the site, pushes it (dry run, create, unchanged, update) and pulls it back', async () => {
    const fake = fakeSite();
    const server = await t.serve(fake.handlers);
    const env = { XDG_CONFIG_HOME: join(t.dir, 'config') };
    const initialised = await runCli(['init', 'blog', '--site', 'blog'], { env, cwd: t.dir });
    expect(initialised.code, initialised.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(t.dir, 'blog', 'trellis.json'), 'utf8'))).toEqual({
      site: 'site:blog',
    });
    for (const file of Object.keys(SCAFFOLD)) expect(initialised.stdout).toContain(`created ${file}`);
    const again = await runCli(['init', 'blog', '--site', 'blog'], { env, cwd: t.dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists (bound to site:blog)');

    // The folder's trellis.json picks the site: the test harness's --site is not passed here.
    const cli = (argv: string[]) =>
      runCli([...argv, '--url', server.url, '--key', 'k'], { env, cwd: join(t.dir, 'blog') });
    const dry = await cli(['push', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('would create   type post');
    expect(dry.stderr).toContain('would create   route home');
    expect(dry.stdout).toBe(
      'Dry run for site:blog: would create 4, would update 0, 0 unchanged. Nothing was written.\n',
    );
    expect(writes(server.requests)).toEqual([]);

    const pushed = await cli(['push']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('4 created, 0 updated, 0 unchanged.');
    expect(server.requests.every((request) => request.headers['x-site-id'] === 'site:blog')).toBe(true);
    expect(fake.templates.get('post')).toMatchObject({ boundType: 'post' });

    const unchanged = await cli(['push']);
    expect(unchanged.stdout).toContain('0 created, 0 updated, 4 unchanged.');
    expect(unchanged.stderr).toContain('unchanged      type post');

    await writeFile(join(t.dir, 'blog', 'templates', 'post.liquid'), '<h1>{{ item.title }}</h1>\n');
    const typeFile = join(t.dir, 'blog', 'types', 'post.json');
    const type = JSON.parse(await readFile(typeFile, 'utf8'));
    type.label = 'Article';
    await writeFile(typeFile, JSON.stringify(type));
    const dryUpdate = await cli(['push', '--dry-run']);
    expect(dryUpdate.stderr).toContain('would update   type post');
    expect(dryUpdate.stderr).toContain('would update   template post');
    expect(dryUpdate.stdout).toContain('would create 0, would update 2, 2 unchanged');
    const updated = await cli(['push', '--json']);
    expect(JSON.parse(updated.stdout).entries).toEqual([
      { kind: 'type', name: 'post', action: 'updated' },
      { kind: 'template', name: 'home', action: 'unchanged' },
      { kind: 'template', name: 'post', action: 'updated' },
      { kind: 'route', name: 'home', action: 'unchanged' },
    ]);
    expect(fake.types.get('post')?.label).toBe('Article');

    // Pull into an empty folder: the same files come back, and push them again changes nothing.
    const pulled = await runCli(['pull', 'copy', '--url', server.url, '--key', 'k', '--site', 'blog'], {
      env,
      cwd: t.dir,
    });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toContain('Pulled site:blog into');
    expect(pulled.stdout).toContain('1 type(s), 2 template(s), 1 route(s)');
    expect(await readdir(join(t.dir, 'copy', 'templates'))).toEqual([
      'home.liquid',
      'post.liquid',
      'templates.json',
    ]);
    expect(await readFile(join(t.dir, 'copy', 'templates', 'post.liquid'), 'utf8')).toBe(
      '<h1>{{ item.title }}</h1>\n',
    );
    expect(JSON.parse(await readFile(join(t.dir, 'copy', 'routes', 'home.json'), 'utf8'))).not.toHaveProperty(
      'createdAt',
    );
    const back = await runCli(['push', '--url', server.url, '--key', 'k'], { env, cwd: join(t.dir, 'copy') });
    expect(back.stdout).toContain('0 created, 0 updated, 4 unchanged.');
  });

  it('refuses a folder with nothing to push, and one without a site', async () => {
    await t.serve({});
    const env = { XDG_CONFIG_HOME: join(t.dir, 'config') };
    const noSite = await runCli(['push', '--url', 'http://127.0.0.1:9'], { env, cwd: t.dir });
    expect(noSite.code).toBe(2);
    expect(noSite.stderr).toContain('No site for');
    const empty = await t.cli(['push']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Nothing to push');
  });
});

describe('push helpers', () => {
  it('orders types so relationship and reference targets come first', () => {
    const type = (name: string, extra: Record<string, unknown> = {}) =>
      ({ name, label: name, nodeLabel: name, keyField: 'slug', fields: [], ...extra }) as never;
    const ordered = orderByDependency([
      type('post', { relationships: [{ name: 'author', edgeLabel: 'BY', target: 'author' }] }),
      type('author', { fields: [{ name: 'team', type: 'reference', target: 'team' }] }),
      type('team'),
    ]);
    expect(ordered.map((entry: { name: string }) => entry.name)).toEqual(['team', 'author', 'post']);
  });

  it('compares only what the local file gives', () => {
    expect(isSubset({ a: 1, b: [{ c: 2 }] }, { a: 1, b: [{ c: 2, d: false }], e: 3 })).toBe(true);
    expect(isSubset({ a: 1, b: [{ c: 2 }] }, { a: 1, b: [{ c: 2 }, { c: 3 }] })).toBe(false);
    expect(isSubset({ a: null }, { a: 0 })).toBe(false);
  });
});
