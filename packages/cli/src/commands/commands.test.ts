import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestServer, type TestServer } from '@trelliscms/sdk/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../test-support/run-cli';

let dir: string;
let server: TestServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cms-cmd-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const cli = (argv: string[]) =>
  runCli([...argv, '--url', server!.url, '--key', 'k', '--site', 'site:blog'], {
    env: { XDG_CONFIG_HOME: join(dir, 'config') },
    cwd: dir,
  });

describe('cms import records', () => {
  it('imports a CSV in calls, prints progress lines and a summary, writes failures to the errors file, exits 4', async () => {
    server = await createTestServer({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: Record<string, unknown>[] };
        const errors = records
          .map((record, index) => ({ record, index }))
          .filter(({ record }) => record.name === undefined)
          .map(({ record, index }) => ({ index, id: `city:${record.slug}`, error: 'name is required' }));
        return {
          body: {
            ok: errors.length === 0,
            totalRecords: records.length,
            created: records.length - errors.length,
            failed: errors.length,
            batches: 1,
            tookMs: 3,
            recordsPerSec: 1000,
            errors,
            gatewayTimeoutWarning: null,
          },
        };
      },
    });
    const rows = ['slug,name,population,code'];
    for (let n = 0; n < 5; n++) rows.push(`c${n},${n === 3 ? '' : `City ${n}`},${n * 1000},00${n}`);
    await writeFile(join(dir, 'cities.csv'), `${rows.join('\n')}\n`);
    const result = await cli(['import', 'records', 'cities.csv', '--type', 'city', '--call-size', '2']);
    expect(result.code).toBe(4);
    const sent = server.requests.flatMap((request) => (request.body as { records: unknown[] }).records);
    expect(sent[0]).toEqual({ slug: 'c0', name: 'City 0', population: 0, code: '000' });
    expect(sent[3]).toEqual({ slug: 'c3', population: 3000, code: '003' });
    expect(server.requests).toHaveLength(3);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^city: 2\/5 \(40%\) created 2, failed 0, \d+\/s$/),
      expect.stringMatching(/^city: 4\/5 \(80%\) created 3, failed 1, \d+\/s$/),
      expect.stringMatching(/^city: 5\/5 \(100%\) created 4, failed 1, \d+\/s$/),
    ]);
    expect(result.stdout).toMatch(
      /Imported 5 city record\(s\) in .* 4 created, 1 failed \(.* records\/s, 3 request\(s\)\)/,
    );
    const errorsFile = join(dir, 'cities.errors.ndjson');
    expect(result.stdout).toContain(`Errors written to ${errorsFile}`);
    expect(JSON.parse((await readFile(errorsFile, 'utf8')).trim())).toEqual({
      index: 3,
      id: 'city:c3',
      error: 'name is required',
    });
  });

  it('picks records.<type> out of a fixture-shaped JSON file and gives a JSON summary', async () => {
    server = await createTestServer({
      'POST /api/import/json': ({ body }) => {
        const { records } = body as { records: unknown[] };
        return {
          body: {
            ok: true,
            totalRecords: records.length,
            created: records.length,
            failed: 0,
            batches: 1,
            tookMs: 1,
            recordsPerSec: 1,
            errors: [],
            gatewayTimeoutWarning: null,
          },
        };
      },
    });
    await writeFile(
      join(dir, 'data.json'),
      JSON.stringify({
        records: { region: [{ slug: 'europe', name: 'Europe' }], country: [{ code: 'fr' }] },
      }),
    );
    const result = await cli(['import', 'records', 'data.json', '--type', 'region', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ totalRecords: 1, created: 1, errorsFile: null });
    expect(server.requests[0]?.body).toMatchObject({ typeName: 'region', records: [{ slug: 'europe' }] });
  });

  it('names the file and line of bad NDJSON and exits 2 without calling the server', async () => {
    server = await createTestServer({});
    await writeFile(join(dir, 'bad.ndjson'), '{"a":1}\n{"a":\n');
    const result = await cli(['import', 'records', 'bad.ndjson', '--type', 'post']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.ndjson line 2: not valid JSON');
    expect(server.requests).toHaveLength(0);
  });
});

describe('cms import edges', () => {
  it('reads from,edge,to CSV with extra columns as props', async () => {
    server = await createTestServer({
      'POST /api/import/edges': ({ body }) => {
        const { edges } = body as { edges: unknown[] };
        return {
          body: {
            ok: true,
            totalEdges: edges.length,
            merged: edges.length,
            mismatch: 0,
            failed: 0,
            batches: 1,
            tookMs: 1,
            edgesPerSec: 1,
            errors: [],
          },
        };
      },
    });
    await writeFile(join(dir, 'edges.csv'), 'from,edge,to,lengthKm\ncountry:fr,BORDERS,country:es,623\n');
    const result = await cli(['import', 'edges', 'edges.csv']);
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toEqual({
      edges: [{ from: 'country:fr', edge: 'BORDERS', to: 'country:es', props: { lengthKm: 623 } }],
    });
    expect(result.stdout).toContain('1 merged, 0 skipped');
  });
});

describe('cms types apply', () => {
  it('creates missing types and patches existing ones from a folder, in file order', async () => {
    const stored = new Map<string, Record<string, unknown>>([['tag', { name: 'tag' }]]);
    server = await createTestServer({
      'GET /api/types/tag': () => ({ body: full('tag', stored.get('tag')) }),
      'GET /api/types/post': () =>
        stored.has('post')
          ? { body: full('post', stored.get('post')) }
          : { status: 404, body: { error: 'no', code: 'not_found' } },
      'POST /api/types': ({ body }) => {
        stored.set('post', body as Record<string, unknown>);
        return { status: 201, body: full('post', body) };
      },
      'PATCH /api/types/tag': ({ body }) => ({ body: full('tag', body) }),
    });
    await mkdir(join(dir, 'types'));
    await writeFile(join(dir, 'types', '1-tag.json'), JSON.stringify(def('tag')));
    await writeFile(join(dir, 'types', '2-post.json'), JSON.stringify(def('post')));
    await writeFile(join(dir, 'types', 'README.md'), 'not a type');
    const result = await cli(['types', 'apply', 'types']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Applied 2 type(s): 1 created, 1 updated.');
    expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/types/tag',
      'PATCH /api/types/tag',
      'GET /api/types/post',
      'POST /api/types',
    ]);
  });
});

describe('cms templates', () => {
  it('pushes only changed .liquid files with their manifest binding, and pulls them back', async () => {
    const templates = new Map<string, Record<string, unknown>>([
      ['layout', { name: 'layout', content: '<html>{{ content }}</html>', version: 3, boundType: '' }],
      ['post', { name: 'post', content: 'old', version: 1, boundType: 'post' }],
    ]);
    server = await createTestServer({
      'GET /api/templates': () => ({ body: [...templates.values()] }),
      'POST /api/templates': ({ body }) => {
        const template = { ...(body as object), version: 1 } as Record<string, unknown>;
        templates.set(template.name as string, template);
        return { status: 201, body: template };
      },
      'PUT /api/templates/post': ({ body }) => {
        const template = { ...templates.get('post'), ...(body as object), version: 2 };
        templates.set('post', template);
        return { body: template };
      },
    });
    const src = join(dir, 'src');
    await mkdir(src);
    await writeFile(join(src, 'layout.liquid'), '<html>{{ content }}</html>');
    await writeFile(join(src, 'post.liquid'), '<h1>{{ item.fields.title }}</h1>');
    await writeFile(join(src, 'card.liquid'), '<div>{{ item.id }}</div>');
    await writeFile(join(src, 'templates.json'), JSON.stringify({ post: { boundType: 'post' } }));
    const push = await cli(['templates', 'push', 'src']);
    expect(push.code).toBe(0);
    expect(push.stdout).toContain('Pushed 3 template(s): 1 created, 1 updated, 1 unchanged.');
    expect(server.hits('PUT /api/templates/post')[0]?.body).toEqual({
      content: '<h1>{{ item.fields.title }}</h1>',
      boundType: 'post',
    });
    expect(server.hits('POST /api/templates')[0]?.body).toEqual({
      name: 'card',
      content: '<div>{{ item.id }}</div>',
    });

    const pull = await cli(['templates', 'pull', 'out']);
    expect(pull.code).toBe(0);
    expect(await readFile(join(dir, 'out', 'post.liquid'), 'utf8')).toBe('<h1>{{ item.fields.title }}</h1>');
    expect(JSON.parse(await readFile(join(dir, 'out', 'templates.json'), 'utf8'))).toEqual({
      post: { boundType: 'post' },
    });
  });
});

describe('cms build', () => {
  it('with --async follows the status to the end and reports the deploy', async () => {
    const running = { ok: true, buildId: 'b7', envId: 'env:dev', status: 'running' };
    let polls = 0;
    server = await createTestServer({
      'POST /api/build': () => ({ status: 202, body: { ...running, statusUrl: '/api/build/status/b7' } }),
      'GET /api/build/status/b7': () =>
        ++polls < 3
          ? { body: running }
          : {
              body: {
                ...running,
                status: 'ok',
                mode: 'full',
                artifacts: 42,
                durationMs: 900,
                transformErrors: [],
                deploy: {
                  ok: true,
                  bucket: 'dir',
                  keyPrefix: 'dev',
                  publicUrl: 'http://127.0.0.1/site',
                  filesUploaded: 42,
                  filesDeleted: 0,
                  bytes: 1234,
                  durationMs: 10,
                  serveCheck: null,
                },
              },
            },
    });
    const result = await cli(['build', '--async', '--env', 'dev', '--mode', 'full', '--poll-interval', '5']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Build b7 started on env:dev');
    expect(result.stdout).toContain('Build b7 ok: 42 artifact(s) in 900 ms (mode full).');
    expect(result.stdout).toContain('deployed 42 file(s), removed 0, 1234 bytes to http://127.0.0.1/site');
    expect(server.hits('POST /api/build')[0]?.body).toEqual({ env: 'dev', mode: 'full', async: true });
  });

  it('exits 1 when a sync build fails', async () => {
    server = await createTestServer({
      'POST /api/build': () => ({
        body: {
          ok: false,
          buildId: 'b8',
          mode: 'full',
          artifacts: 0,
          durationMs: 5,
          transformErrors: [],
          deploy: null,
          error: 'template post does not parse',
        },
      }),
    });
    const result = await cli(['build']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Build b8 FAILED');
    expect(result.stdout).toContain('error: template post does not parse');
  });
});

function def(name: string) {
  return {
    name,
    label: name,
    nodeLabel: name[0]!.toUpperCase() + name.slice(1),
    keyField: 'slug',
    fields: [{ name: 'slug', type: 'string' }],
  };
}

function full(name: string, body: unknown) {
  return { ...def(name), ...(body as object), name };
}

describe('cms routes apply', () => {
  it('creates a missing route and updates an existing one by slug', async () => {
    const route = { slug: 'home', path: '/', kind: 'listing', template: 'home', paginate: { type: 'post' } };
    let exists = false;
    server = await createTestServer({
      'GET /api/routes/home': () =>
        exists ? { body: route } : { status: 404, body: { error: 'no', code: 'not_found' } },
      'POST /api/routes': ({ body }) => {
        exists = true;
        return { status: 201, body };
      },
      'PATCH /api/routes/home': ({ body }) => ({ body: { ...route, ...(body as object) } }),
    });
    await writeFile(join(dir, 'routes.json'), JSON.stringify({ routes: [route] }));
    const first = await cli(['routes', 'apply', 'routes.json', '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).routes).toEqual([{ slug: 'home', path: '/', action: 'created' }]);
    const second = await cli(['routes', 'apply', 'routes.json']);
    expect(second.stdout).toContain('Applied 1 route(s): 0 created, 1 updated.');
    expect(server.hits('PATCH /api/routes/home')[0]?.body).not.toHaveProperty('slug');
  });
});
