import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture, releaseFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

const include = {
  kind: 'content',
  versionableId: 'post:hello',
  version: 3,
  hash: 'sha256:3333333333333333',
  at: '2026-04-30T10:00:00.000Z',
};

describe('cms replay', () => {
  it('sends a relative --at as an ISO atTime and prints the release and its items', async () => {
    const server = await t.serve({
      'GET /api/releases/replay': () => ({
        body: {
          deployment: deploymentFixture('1', 'deployed'),
          release: releaseFixture('spring', { state: 'deployed', includes: [include] }),
          includes: [include],
        },
      }),
    });
    const before = Date.now();
    const result = await t.cli(['replay', '--env', 'prod', '--at', '-1d']);
    expect(result.code, result.stderr).toBe(0);
    const url = new URL(server.hits('GET /api/releases/replay')[0]!.url, 'http://x');
    expect(url.searchParams.get('envId')).toBe('env:prod');
    const atTime = url.searchParams.get('atTime')!;
    expect(before - Date.parse(atTime)).toBeGreaterThanOrEqual(86_400_000 - 60_000);
    expect(before - Date.parse(atTime)).toBeLessThanOrEqual(86_400_000);
    expect(result.stdout).toContain(
      `env:prod at ${atTime}: release:spring via deploy:1 (deployed, from 2026-05-01T10:00:00.000Z).`,
    );
    expect(result.stdout).toMatch(/post:hello\s+3\s+2026-04-30T10:00:00.000Z/);
  });

  it('prints a future answer with its live items', async () => {
    await t.serve({
      'GET /api/releases/replay': () => ({
        body: {
          deployment: deploymentFixture('2', 'pending', { validFrom: '2026-06-01T09:00:00.000Z' }),
          release: releaseFixture('summer', { state: 'approved' }),
          includes: [],
          atTime: '2026-06-02T00:00:00.000Z',
          future: true,
          live: [
            {
              itemId: 'post:hello',
              type: 'post',
              version: 4,
              hash: 'sha256:4444',
              since: '2026-06-01T09:00:00.000Z',
              cause: 'deployment',
              deploymentId: 'deploy:2',
              releaseId: 'release:summer',
            },
          ],
        },
      }),
    });
    const result = await t.cli(['replay', '--env', 'prod', '--at', '2026-06-02T00:00:00Z']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'env:prod at 2026-06-02T00:00:00.000Z (future: counting scheduled deployments)',
    );
    expect(result.stdout).toMatch(
      /Live items \(1\):\nITEM\s+VERSION.*\npost:hello\s+4\s+2026-06-01T09:00:00.000Z\s+deployment\s+release:summer/,
    );
  });

  it('exits 2 without --env', async () => {
    await t.serve({});
    expect((await t.cli(['replay', '--at', 'now'])).code).toBe(2);
  });
});
