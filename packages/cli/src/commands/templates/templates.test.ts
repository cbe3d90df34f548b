import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

describe('cms templates', () => {
  it('pushes only changed .liquid files with their manifest binding, and pulls them back', async () => {
    const templates = new Map<string, Record<string, unknown>>([
      ['layout', { name: 'layout', content: '<html>{{ content }}</html>', version: 3, boundType: '' }],
      ['post', { name: 'post', content: 'old', version: 1, boundType: 'post' }],
    ]);
    const server = await t.serve({
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
    const src = join(t.dir, 'src');
    await mkdir(src);
    await writeFile(join(src, 'layout.liquid'), '<html>{{ content }}</html>');
    await writeFile(join(src, 'post.liquid'), '<h1>{{ item.fields.title }}</h1>');
    await writeFile(join(src, 'card.liquid'), '<div>{{ item.id }}</div>');
    await writeFile(join(src, 'templates.json'), JSON.stringify({ post: { boundType: 'post' } }));
    const dry = await t.cli(['templates', 'push', 'src', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('Dry run: would create 1, would update 1, 1 unchanged.\n');
    expect(dry.stderr).toContain('would create card\n');
    expect(server.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    const push = await t.cli(['templates', 'push', 'src']);
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

    const pull = await t.cli(['templates', 'pull', 'out']);
    expect(pull.code).toBe(0);
    expect(await readFile(join(t.dir, 'out', 'post.liquid'), 'utf8')).toBe(
      '<h1>{{ item.fields.title }}</h1>',
    );
    expect(JSON.parse(await readFile(join(t.dir, 'out', 'templates.json'), 'utf8'))).toEqual({
      post: { boundType: 'post' },
    });
  });
});

describe('cms templates delete', () => {
  it('deletes a template', async () => {
    const server = await t.serve({ 'DELETE /api/templates/old': () => ({ status: 204 }) });
    const result = await t.cli(['templates', 'delete', 'old']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Deleted template old and its versions.\n');
    expect(server.hits('DELETE /api/templates/old')).toHaveLength(1);
  });
});
