import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { fieldsToRestore } from './versions';

const t = setUpCommandTests('cms-versions-');
const version = (n: number, fields: Record<string, unknown>) => ({
  id: `post:hello@${n}`,
  itemId: 'post:hello',
  version: n,
  hash: `${n}`.repeat(16),
  status: 'draft',
  action: 'content.update',
  actor: 'user:owner',
  at: `2026-11-2${n}T10:00:00.000Z`,
  fields,
  body: null,
});
const v1 = version(1, { slug: 'hello', title: 'Hello', subtitle: 'first' });
const v3 = version(3, { slug: 'hello', title: 'Hello again', tags: ['x'] });

describe('fieldsToRestore', () => {
  it('keeps equal fields out, changes the others and clears the ones the version lacked', () => {
    expect(fieldsToRestore(v3.fields, v1.fields)).toEqual({ title: 'Hello', subtitle: 'first', tags: null });
    expect(fieldsToRestore(v1.fields, v1.fields)).toEqual({});
  });
});

describe('cms versions', () => {
  it('restores an earlier version with a guarded PATCH; --dry-run writes nothing', async () => {
    const server = await t.serve({
      'GET /api/content/post/post%3Ahello/versions': () => ({ body: [v3, v1] }),
      'GET /api/content/post/post%3Ahello/versions/1': () => ({ body: v1 }),
      'PATCH /api/content/post/post%3Ahello': ({ body }) => ({
        body: {
          id: 'post:hello',
          type: 'post',
          fields: { ...v1.fields },
          createdAt: v1.at,
          updatedAt: v3.at,
          echo: body,
        },
      }),
    });
    const dry = await t.cli(['versions', 'restore', 'post', 'hello', '1', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      'Would restore post:hello to the fields of version 1; would change: title, subtitle, tags.\n',
    );
    expect(server.hits('PATCH /api/content/post/post%3Ahello')).toEqual([]);

    const done = await t.cli(['versions', 'restore', 'post', 'hello', '1']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('Restored post:hello to the fields of version 1');
    expect(server.hits('PATCH /api/content/post/post%3Ahello')[0]?.body).toEqual({
      fields: { title: 'Hello', subtitle: 'first', tags: null },
      expectedVersion: 3,
    });
  });

  it('lists versions and shows one', async () => {
    await t.serve({
      'GET /api/content/post/post%3Ahello/versions': () => ({ body: [v3, v1] }),
      'GET /api/content/post/post%3Ahello/versions/3': () => ({ body: v3 }),
    });
    const list = await t.cli(['versions', 'list', 'post', 'hello']);
    expect(list.stdout.split('\n')[0]).toMatch(/^VERSION +STATUS +ACTION +ACTOR +AT +HASH$/);
    const show = await t.cli(['versions', 'show', 'post', 'hello', '3']);
    expect(show.stdout).toContain('post:hello version 3 (draft, content.update by user:owner');
    expect(show.stdout).toContain('"title": "Hello again"');
    expect((await t.cli(['versions', 'show', 'post', 'hello', 'three'])).code).toBe(2);
  });
});
