import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const bulk = (ids: string[], extra: Record<string, unknown> = {}) => ({
  ok: true,
  envId: 'env:prod',
  changed: ids.length,
  unchanged: 1,
  ids,
  revision: 9,
  ...extra,
});

describe('cms publish', () => {
  it('publishes one item through its own route', async () => {
    const server = await t.serve({
      'POST /api/content/post/post%3Ahello/publish': () => ({
        body: {
          id: 'post:hello',
          type: 'post',
          fields: {},
          status: 'published',
          version: 3,
          publishedEnvs: ['prod'],
        },
      }),
    });
    const result = await t.cli(['publish', 'post', 'hello', '--env', 'prod']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Published post:hello to prod (version 3); live in: prod.\n');
    expect(server.hits('POST /api/content/post/post%3Ahello/publish')[0]?.body).toEqual({ env: 'prod' });
  });

  it('publishes many ids in one bulk request', async () => {
    const server = await t.serve({ 'POST /api/publish': () => ({ body: bulk(['post:a', 'post:b']) }) });
    const result = await t.cli(['publish', 'post', 'a', 'post:b', 'a']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Published 2 item(s) to env:prod; 1 unchanged; live revision 9.\n  post:a\n  post:b\n',
    );
    expect(server.hits('POST /api/publish')[0]?.body).toEqual({ ids: ['post:a', 'post:b'] });
  });

  it('publishes every item of a type matching --status and --q', async () => {
    const server = await t.serve({ 'POST /api/publish': () => ({ body: bulk(['post:a']) }) });
    const result = await t.cli([
      'publish',
      '--type',
      'post',
      '--status',
      'draft',
      '--q',
      'spring',
      '--env',
      'staging',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(bulk(['post:a']));
    expect(server.hits('POST /api/publish')[0]?.body).toEqual({
      env: 'staging',
      type: 'post',
      status: 'draft',
      q: 'spring',
    });
  });

  it('exits 4 when the server answers ok: false', async () => {
    await t.serve({ 'POST /api/publish': () => ({ body: bulk([], { ok: false }) }) });
    expect((await t.cli(['publish', '--type', 'post'])).code).toBe(4);
  });

  it('exits 2 when it is not told which items, or told two ways', async () => {
    const server = await t.serve({});
    const none = await t.cli(['publish']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Name what to publish: <type> <id> (one item)');
    expect((await t.cli(['publish', 'post'])).code).toBe(2);
    expect((await t.cli(['publish', 'post', 'a', '--type', 'post'])).code).toBe(2);
    expect((await t.cli(['publish', 'post', 'a', '--status', 'draft'])).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('cms unpublish', () => {
  it('unpublishes one item through its own route and many through /api/unpublish', async () => {
    const server = await t.serve({
      'POST /api/content/post/post%3Ahello/unpublish': () => ({
        body: { id: 'post:hello', type: 'post', fields: {}, status: 'draft', publishedEnvs: [] },
      }),
      'POST /api/unpublish': () => ({ body: bulk(['post:a', 'post:b']) }),
    });
    const one = await t.cli(['unpublish', 'post', 'post:hello']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('Unpublished post:hello; live in: no environment.\n');
    expect(server.hits('POST /api/content/post/post%3Ahello/unpublish')[0]?.body).toEqual({});
    const many = await t.cli(['unpublish', '--type', 'post', '--q', '2019']);
    expect(many.code, many.stderr).toBe(0);
    expect(many.stdout).toContain('Unpublished 2 item(s) from env:prod; 1 unchanged; live revision 9.');
    expect(server.hits('POST /api/unpublish')[0]?.body).toEqual({ type: 'post', q: '2019' });
  });
});
