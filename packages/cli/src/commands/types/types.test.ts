import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms types apply', () => {
  it('creates missing types and patches existing ones from a folder, in file order', async () => {
    const stored = new Map<string, Record<string, unknown>>([['tag', { name: 'tag' }]]);
    const server = await t.serve({
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
    await mkdir(join(t.dir, 'types'));
    await writeFile(join(t.dir, 'types', '1-tag.json'), JSON.stringify(def('tag')));
    await writeFile(join(t.dir, 'types', '2-post.json'), JSON.stringify(def('post')));
    await writeFile(join(t.dir, 'types', 'README.md'), 'not a type');
    const result = await t.cli(['types', 'apply', 'types']);
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
