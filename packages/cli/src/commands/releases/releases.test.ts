import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { releaseFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

const version3 = {
  id: 'post:hello@3',
  itemId: 'post:hello',
  version: 3,
  hash: 'sha256:3333333333333333333333',
  status: 'draft',
  action: 'content.update',
  actor: 'key:k',
  at: '2026-04-30T10:00:00.000Z',
  fields: { title: 'Hello' },
  body: null,
};

describe('cms releases create, include, show, list', () => {
  it('creates a draft release with its description, intent and origin', async () => {
    const server = await t.serve({
      'POST /api/releases': ({ body }) => ({
        status: 201,
        body: releaseFixture('spring', { description: (body as { description: string }).description }),
      }),
    });
    const result = await t.cli([
      'releases',
      'create',
      'spring',
      '--description',
      'Spring posts',
      '--intent',
      'launch',
      '--from',
      'winter',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Created release:spring (draft).');
    expect(result.stdout).toContain('cms releases include release:spring <type> <id>');
    expect(server.hits('POST /api/releases')[0]?.body).toEqual({
      name: 'spring',
      description: 'Spring posts',
      intent: 'launch',
      derivedFromReleaseId: 'release:winter',
    });
  });

  it("includes an item by slug at its head version, with that version's hash", async () => {
    const server = await t.serve({
      'GET /api/content/post/post%3Ahello': () => ({
        body: { id: 'post:hello', type: 'post', fields: { title: 'Hello' }, version: 3 },
      }),
      'GET /api/content/post/post%3Ahello/versions/3': () => ({ body: version3 }),
      'POST /api/releases/release%3Aspring/includes': ({ body }) => ({
        body: releaseFixture('spring', { includes: [body as never] }),
      }),
    });
    const result = await t.cli(['releases', 'include', 'spring', 'post', 'hello']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Included post:hello version 3 (sha256:333333333333) in release:spring: 1 item(s).\n',
    );
    expect(server.hits('POST /api/releases/release%3Aspring/includes')[0]?.body).toEqual({
      kind: 'content',
      versionableId: 'post:hello',
      version: 3,
      hash: version3.hash,
      at: version3.at,
    });
  });

  it('includes the version given with --item-version (--version stays the version of cms)', async () => {
    const server = await t.serve({
      'GET /api/content/post/post%3Ahello/versions/3': () => ({ body: version3 }),
      'POST /api/releases/release%3Aspring/includes': ({ body }) => ({
        body: releaseFixture('spring', { includes: [body as never] }),
      }),
    });
    const result = await t.cli([
      'releases',
      'include',
      'release:spring',
      'post',
      'post:hello',
      '--item-version',
      '3',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hits('GET /api/content/post/post%3Ahello')).toHaveLength(0);
    expect(server.hits('POST /api/releases/release%3Aspring/includes')).toHaveLength(1);
    const help = await t.cli(['releases', 'include', '--help']);
    expect(help.stdout).toContain('--item-version <n>');
    expect(help.stdout).toContain('--version is the version of cms itself');
  });

  it('shows a release with its items and reviews, and lists releases by state', async () => {
    const spring = releaseFixture('spring', {
      state: 'pending',
      description: 'Spring posts',
      includes: [
        { kind: 'content', versionableId: 'post:hello', version: 3, hash: version3.hash, at: version3.at },
      ],
      reviews: [
        {
          name: 'content:post:hello',
          versionableId: 'post:hello',
          required: true,
          status: 'passed',
          stale: true,
          findings: [{ severity: 'warning', message: 'no summary' }],
        },
      ],
    });
    const server = await t.serve({
      'GET /api/releases/release%3Aspring': () => ({ body: spring }),
      'GET /api/releases': () => ({ body: [spring] }),
    });
    const shown = await t.cli(['releases', 'show', 'spring']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('release:spring (pending): 1 item(s)');
    expect(shown.stdout).toContain('description: Spring posts');
    expect(shown.stdout).toMatch(/post:hello\s+3\s+sha256:333333333333\s+2026-04-30T10:00:00.000Z/);
    expect(shown.stdout).toMatch(/content:post:hello\s+passed\s+stale\s+warning: no summary/);
    const listed = await t.cli(['releases', 'list', '--state', 'pending', '--limit', '5', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([spring]);
    expect(server.hits('GET /api/releases')[0]?.url).toBe('/api/releases?state=pending&limit=5');
    const bad = await t.cli(['releases', 'list', '--state', 'shipped']);
    expect(bad.code).toBe(2);
  });
});

describe('cms releases submit and approve', () => {
  it('pages the list with --offset and shows how many releases there are', async () => {
    const server = await t.serve({
      'GET /api/releases': () => ({
        body: [releaseFixture('march'), releaseFixture('february')],
        headers: { 'x-total-count': '12' },
      }),
    });
    const result = await t.cli(['releases', 'list', '--limit', '2', '--offset', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('3-4 of 12');
    expect(server.hits('GET /api/releases')[0]?.url).toBe('/api/releases?limit=2&offset=2');
  });

  it('submits for review and prints what would block a deploy', async () => {
    await t.serve({
      'POST /api/releases/release%3Aspring/transition': () => ({
        body: releaseFixture('spring', {
          state: 'pending',
          reviews: [
            {
              name: 'content:post:gone',
              required: true,
              status: 'failed',
              stale: false,
              findings: [{ severity: 'blocking', message: 'post:gone no longer exists' }],
            },
          ],
        }),
      }),
    });
    const result = await t.cli(['releases', 'submit', 'spring']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Submitted release:spring for review (pending): 0/1 review(s) passed.');
    expect(result.stdout).toContain(
      'A deploy would be refused (review_gate):\n  blocking: post:gone no longer exists',
    );
  });

  it('approves, and with --submit moves a draft through pending first', async () => {
    const server = await t.serve({
      'POST /api/releases/release%3Aspring/transition': ({ body }) => ({
        body: releaseFixture('spring', { state: (body as { state: 'pending' | 'approved' }).state }),
      }),
    });
    const plain = await t.cli(['releases', 'approve', 'spring']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('Approved release:spring.\nNext: cms deploy release:spring --env prod');
    const submitted = await t.cli(['releases', 'approve', 'spring', '--submit', '--comment', 'ok']);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toContain('Approved release:spring (submitted and reviewed first).');
    expect(server.requests.map((request) => request.body)).toEqual([
      { state: 'approved' },
      { state: 'pending', comment: 'ok' },
      { state: 'approved', comment: 'ok' },
    ]);
  });

  it('prints the 409 of a move the release state machine refuses, and exits 1', async () => {
    await t.serve({
      'POST /api/releases/release%3Aspring/transition': () => ({
        status: 409,
        body: { error: 'Release `release:spring` is draft; approve a pending release.', code: 'conflict' },
      }),
    });
    const result = await t.cli(['releases', 'approve', 'spring']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: 409 conflict: Release `release:spring` is draft; approve a pending release.\n',
    );
  });
});

describe('cms releases delete', () => {
  it('deletes a draft release given by name', async () => {
    const server = await t.serve({ 'DELETE /api/releases/release%3Aspring': () => ({ status: 204 }) });
    const result = await t.cli(['releases', 'rm', 'spring', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, id: 'release:spring' });
    expect(server.requests).toHaveLength(1);
  });

  it('shows why a release that is not a draft cannot be deleted', async () => {
    await t.serve({
      'DELETE /api/releases/release%3Aspring': () => ({
        status: 409,
        body: {
          error:
            'Release `release:spring` is deployed; only a draft release can be deleted: a deployed release is the record of what went live and is never deleted.',
          code: 'conflict',
        },
      }),
    });
    const result = await t.cli(['releases', 'delete', 'release:spring']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: 409 conflict: Release `release:spring` is deployed');
  });
});
