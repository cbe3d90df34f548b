import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const EDITORIAL = {
  name: 'editorial',
  types: ['post'],
  initial: 'draft',
  states: [{ name: 'draft' }, { name: 'review' }, { name: 'published' }],
  transitions: [
    { name: 'submit', from: 'draft', to: 'review', roles: ['editor'] },
    { name: 'publish', from: 'review', to: 'published', roles: ['admin'], requireComment: true },
  ],
};

const STATE = {
  versionableId: 'post:hello',
  workflow: 'editorial',
  state: 'review',
  live: false,
  publishedEnvs: [],
  next: ['published'],
  allowed: [{ name: 'publish', to: 'published', requireComment: true, publishes: true }],
  updatedAt: '2026-01-02T03:04:05.000Z',
  updatedBy: 'key:ed',
  history: [
    {
      from: 'draft',
      to: 'review',
      at: '2026-01-02T03:04:05.000Z',
      by: 'key:ed',
      comment: 'ready',
      workflow: 'editorial',
      transition: 'submit',
      version: 1,
      role: 'editor',
    },
  ],
};

describe('cms workflows', () => {
  it('creates a workflow from a file, lists, shows and removes it', async () => {
    const server = await t.serve({
      'POST /api/workflows': ({ body }) => ({ status: 201, body }),
      'GET /api/workflows': () => ({ body: [EDITORIAL] }),
      'GET /api/workflows/editorial': () => ({ body: EDITORIAL }),
      'DELETE /api/workflows/editorial': () => ({ status: 204 }),
    });
    await writeFile(join(t.dir, 'editorial.json'), JSON.stringify(EDITORIAL));
    const created = await t.cli(['workflows', 'create', 'editorial.json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created workflow editorial.');
    expect(server.hits('POST /api/workflows')[0]?.body).toEqual(EDITORIAL);

    const list = await t.cli(['workflows', 'list']);
    expect(list.stdout).toMatch(
      /^NAME\s+TYPES\s+INITIAL\s+STATES\s+TRANSITIONS\neditorial\s+post\s+draft\s+draft review published\s+2\n$/,
    );
    const show = await t.cli(['workflows', 'show', 'editorial']);
    expect(show.stdout).toContain('States: draft (initial), review, published (live)');
    expect(show.stdout).toContain('publish: review -> published  roles: admin  comment required');
    const removed = await t.cli(['workflows', 'rm', 'editorial']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('Deleted workflow editorial.\n');
  });

  it('shows an item’s state and moves it, printing the server’s refusal', async () => {
    let refuse = true;
    const server = await t.serve({
      'GET /api/workflows/post%3Ahello/state': () => ({ body: STATE }),
      'POST /api/workflows/post%3Ahello/transition': ({ body }) =>
        refuse
          ? {
              status: 400,
              body: {
                error: 'The transition `publish` of workflow `editorial` needs a comment: send `comment`.',
                code: 'workflow_comment_required',
              },
            }
          : {
              body: {
                ok: true,
                transition: {
                  ...STATE.history[0],
                  from: 'review',
                  to: 'published',
                  comment: (body as { comment: string }).comment,
                },
                state: {
                  ...STATE,
                  state: 'published',
                  live: true,
                  publishedEnvs: ['prod'],
                  allowed: [],
                  next: [],
                },
              },
            },
    });
    const state = await t.cli(['workflows', 'state', 'post:hello']);
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout).toContain('post:hello: review (workflow editorial)');
    expect(state.stdout).toContain('You can move it: publish -> published (comment required) (publishes)');
    expect(state.stdout).toContain('draft -> review  by key:ed (editor)  "ready"');

    const bare = await t.cli(['workflows', 'transition', 'post:hello', 'published']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('400 workflow_comment_required');
    refuse = false;
    const moved = await t.cli(['workflows', 'transition', 'post:hello', 'published', '-m', 'ship it']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe('Moved post:hello: review -> published (live in prod).\n');
    expect(server.hits('POST /api/workflows/post%3Ahello/transition')[1]?.body).toEqual({
      to: 'published',
      comment: 'ship it',
    });
  });

  it('has an example in every --help', async () => {
    await t.serve({});
    for (const sub of ['list', 'show', 'create', 'rm', 'state', 'transition']) {
      const help = await t.cli(['workflows', sub, '--help']);
      expect(help.stdout, sub).toMatch(/Examples?:\n {2}\$ cms workflows /);
    }
  });
});
