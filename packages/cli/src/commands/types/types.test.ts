import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms types apply', () => {
  it('creates missing types and patches existing ones from a folder, in file order', async () => {
    const stored = new Map<string, Record<string, unknown>>([['tag', { name: 'tag' }]]);
    const server = await t.serve({
      'GET /api/types/tag': () => ({ body: full('tag', { ...stored.get('tag'), label: 'Old label' }) }),
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
    await mkdir(join(t.dir, 'types'));
    await writeFile(join(t.dir, 'types', '1-tag.json'), JSON.stringify(def('tag')));
    await writeFile(join(t.dir, 'types', '2-post.json'), JSON.stringify(def('post')));
    await writeFile(join(t.dir, 'types', 'README.md'), 'not a type');
    const result = await t.cli(['types', 'apply', 'types']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Applied 2 type(s): 1 created, 1 updated, 0 unchanged.');
    expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/types/tag',
      'PATCH /api/types/tag',
      'GET /api/types/post',
      'POST /api/types',
    ]);
  });
});

describe('cms types apply: unchanged and --dry-run', () => {
  it('says unchanged for a type that already matches, and would create/update in a dry run', async () => {
    const server = await t.serve({
      'GET /api/types/tag': () => ({
        body: { ...full('tag', {}), fields: [{ name: 'slug', type: 'string', required: false }] },
      }),
      'GET /api/types/post': () => ({ status: 404, body: { error: 'no', code: 'not_found' } }),
    });
    await writeFile(join(t.dir, 'types.json'), JSON.stringify([def('tag'), def('post')]));
    const dry = await t.cli(['types', 'apply', 'types.json', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toBe('unchanged tag\nwould create post\n');
    expect(dry.stdout).toBe('Dry run: would create 1, would update 0, 1 unchanged.\n');
    expect(server.requests.every((request) => request.method === 'GET')).toBe(true);
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

describe('cms types delete', () => {
  it('deletes a type, with --cascade when asked (alias rm)', async () => {
    const server = await t.serve({ 'DELETE /api/types/note': () => ({ status: 204 }) });
    const plain = await t.cli(['types', 'delete', 'note']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('Deleted type note.\n');
    const cascaded = await t.cli(['types', 'rm', 'note', '--cascade', '--json']);
    expect(cascaded.code, cascaded.stderr).toBe(0);
    expect(JSON.parse(cascaded.stdout)).toEqual({ ok: true, type: 'note', cascade: true });
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/types/note',
      '/api/types/note?cascade=1',
    ]);
  });

  it('prints what holds a type the server refuses to delete, and exits 1', async () => {
    const holders = [
      { kind: 'item', id: 'note:one', cascades: true },
      { kind: 'template', id: 'note', detail: 'bound to note', cascades: false },
    ];
    await t.serve({
      'DELETE /api/types/note': () => ({
        status: 409,
        body: {
          error:
            'Content type `note` cannot be deleted; it is still used by item note:one and template `note`.',
          code: 'in_use',
          hint: 'Change or delete them first (each holder names what uses it), then delete again.',
          holders,
          holderCount: 2,
        },
      }),
    });
    const result = await t.cli(['types', 'delete', 'note']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'Error: 409 in_use: Content type `note` cannot be deleted; it is still used by item note:one and template `note`.',
        '  - item note:one',
        '  - template note: bound to note',
        'Hint: Change or delete them first (each holder names what uses it), then delete again.',
        '',
      ].join('\n'),
    );
    const json = await t.cli(['types', 'delete', 'note', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      status: 409,
      code: 'in_use',
      holders,
      holderCount: 2,
    });
  });
});
