import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const SCRIPT = {
  name: 'require-summary',
  language: 'javascript',
  source: 'if (!item.fields.summary) throw new Error("A post needs a summary");',
  event: 'beforeSave',
  type: 'post',
  enabled: true,
  timeoutMs: 500,
  memoryMb: 16,
};

describe('cms scripts', () => {
  it('creates a script from a file with its event, type and limits, lists and shows it', async () => {
    await writeFile(join(t.dir, 'hook.js'), SCRIPT.source);
    const server = await t.serve({
      'POST /api/scripts': () => ({ status: 201, body: SCRIPT }),
      'GET /api/scripts': () => ({ body: [SCRIPT] }),
      'GET /api/scripts/require-summary': () => ({ body: SCRIPT }),
    });
    const created = await t.cli([
      'scripts',
      'create',
      'require-summary',
      '--file',
      'hook.js',
      '--event',
      'beforeSave',
      '--type',
      'post',
      '--timeout',
      '500',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('Created script require-summary (beforeSave for post).\n');
    expect(server.requests[0]!.body).toEqual({
      name: 'require-summary',
      source: SCRIPT.source,
      event: 'beforeSave',
      type: 'post',
      timeoutMs: 500,
    });
    const list = await t.cli(['scripts', 'list']);
    expect(list.stdout).toMatch(
      /^NAME\s+EVENT\s+TYPE\s+ENABLED\s+TIMEOUT MS\s+MEMORY MB\nrequire-summary\s+beforeSave\s+post\s+true\s+500\s+16\n$/,
    );
    const shown = await t.cli(['scripts', 'show', 'require-summary']);
    expect(shown.stdout).toContain(SCRIPT.source);
    // a bad event is a usage error, before any request
    const bad = await t.cli(['scripts', 'create', 'x', '--file', 'hook.js', '--event', 'whenever']);
    expect(bad.code).toBe(2);
  });

  it('updates settings and deletes with --cascade', async () => {
    const server = await t.serve({
      'PATCH /api/scripts/require-summary': () => ({ body: { ...SCRIPT, enabled: false } }),
      'DELETE /api/scripts/require-summary': () => ({ status: 204 }),
    });
    const updated = await t.cli(['scripts', 'update', 'require-summary', '--disable', '--memory', '8']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(server.requests[0]!.body).toEqual({ enabled: false, memoryMb: 8 });
    const nothing = await t.cli(['scripts', 'update', 'require-summary']);
    expect(nothing.code).toBe(2);
    const removed = await t.cli(['scripts', 'rm', 'require-summary', '--cascade']);
    expect(removed.stdout).toBe('Deleted script require-summary and the transforms that run it.\n');
    expect(server.requests.at(-1)!.url).toBe('/api/scripts/require-summary?cascade=1');
  });

  it('tests a script on an input file: 0 when it returns, 1 with its message when it refuses', async () => {
    await writeFile(join(t.dir, 'post.json'), JSON.stringify({ item: { fields: { title: 'A' } } }));
    const server = await t.serve({
      'POST /api/scripts/require-summary/test': () => ({
        body: {
          script: 'require-summary',
          status: 'rejected',
          message: 'A post needs a summary',
          logs: ['checking'],
          durationMs: 3,
        },
      }),
      'POST /api/scripts/shout/test': () => ({
        body: { script: 'shout', status: 'ok', value: { fields: { title: 'HI' } }, logs: [], durationMs: 2 },
      }),
    });
    const refused = await t.cli(['scripts', 'test', 'require-summary', '--input', 'post.json']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('log: checking\nrejected after 3 ms: A post needs a summary\n');
    expect(server.requests[0]!.body).toEqual({ input: { item: { fields: { title: 'A' } } } });
    const ok = await t.cli(['scripts', 'test', 'shout', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: 'ok', value: { fields: { title: 'HI' } } });
    expect(server.requests[1]!.body).toEqual({});
  });

  it('documents the script contract and examples in --help', async () => {
    await t.serve({});
    const help = await t.cli(['scripts', '--help']);
    expect(help.stdout).toContain('throw new Error("message")');
    expect(help.stdout).toContain('$ cms scripts test require-summary --input post.json');
    const testHelp = await t.cli(['scripts', 'test', '--help']);
    expect(testHelp.stdout).toContain('Examples:');
  });
});
