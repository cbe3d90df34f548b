import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

const from = '2026-05-04T09:00:00.000Z';
const to = '2026-05-06T09:00:00.000Z';

describe('cms drip preview', () => {
  it('plans one time per release, sending the window, pattern and a numeric seed', async () => {
    const server = await t.serve({
      'POST /api/releases/drip-preview': () => ({
        body: {
          schedule: { timestamps: [from, '2026-05-05T09:00:00.000Z', to] },
          pairs: [
            { releaseId: 'release:w1', validFrom: from },
            { releaseId: 'release:w2', validFrom: '2026-05-05T09:00:00.000Z' },
            { releaseId: 'release:w3', validFrom: to },
          ],
        },
      }),
    });
    const result = await t.cli([
      'drip',
      'preview',
      '--releases',
      'w1, release:w2,w3',
      '--from',
      '2026-05-04T11:00+02:00',
      '--to',
      to,
      '--pattern',
      'jittered',
      '--seed',
      '42',
      '--max-jitter',
      '2h',
      '--min-spacing',
      '30m',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^VALID FROM\s+RELEASE ID\n2026-05-04T09:00:00.000Z\s+release:w1\n/);
    expect(server.hits('POST /api/releases/drip-preview')[0]?.body).toEqual({
      windowStart: from,
      windowEnd: to,
      pattern: 'jittered',
      seed: 42,
      maxJitterMs: 7_200_000,
      minSpacingMs: 1_800_000,
      releaseIds: ['release:w1', 'release:w2', 'release:w3'],
    });
  });

  it('plans --count times with a text seed', async () => {
    const server = await t.serve({
      'POST /api/releases/drip-preview': () => ({ body: { schedule: { timestamps: [from, to] } } }),
    });
    const result = await t.cli([
      'drip',
      'preview',
      '--count',
      '2',
      '--from',
      from,
      '--to',
      to,
      '--seed',
      'spring',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^N\s+VALID FROM\n1\s+2026-05-04T09:00:00.000Z\n2\s+2026-05-06/);
    expect(server.hits('POST /api/releases/drip-preview')[0]?.body).toMatchObject({
      count: 2,
      seed: 'spring',
    });
  });

  it('exits 2 on both or neither of --releases and --count, or an unknown pattern', async () => {
    const server = await t.serve({});
    expect((await t.cli(['drip', 'preview', '--from', from, '--to', to])).code).toBe(2);
    expect(
      (await t.cli(['drip', 'preview', '--count', '2', '--releases', 'a', '--from', from, '--to', to])).code,
    ).toBe(2);
    expect(
      (await t.cli(['drip', 'preview', '--count', '2', '--from', from, '--to', to, '--pattern', 'wavy']))
        .code,
    ).toBe(2);
    expect((await t.cli(['drip', 'preview', '--count', '2', '--from', 'soon', '--to', to])).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('cms drip schedule', () => {
  it('schedules one deployment per release on the environment', async () => {
    const server = await t.serve({
      'POST /api/releases/drip-schedule': () => ({
        status: 201,
        body: {
          schedule: { timestamps: [from, to] },
          deployments: [
            deploymentFixture('1', 'pending', { releaseId: 'release:w1', validFrom: from }),
            deploymentFixture('2', 'pending', {
              releaseId: 'release:w2',
              validFrom: to,
              prebuiltBuildId: 'b9',
            }),
          ],
        },
      }),
    });
    const result = await t.cli([
      'drip',
      'schedule',
      '--releases',
      'w1,w2',
      '--env',
      'prod',
      '--from',
      from,
      '--to',
      to,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Scheduled 2 deployment(s) on env:prod');
    expect(result.stdout).toMatch(
      /deploy:2\s+pending\s+release:w2\s+env:prod\s+2026-05-06T09:00:00.000Z\s+b9/,
    );
    expect(server.hits('POST /api/releases/drip-schedule')[0]?.body).toEqual({
      windowStart: from,
      windowEnd: to,
      releaseIds: ['release:w1', 'release:w2'],
      environmentId: 'env:prod',
    });
  });

  it('exits 2 without --env or --releases', async () => {
    await t.serve({});
    expect((await t.cli(['drip', 'schedule', '--releases', 'a', '--from', from, '--to', to])).code).toBe(2);
    expect((await t.cli(['drip', 'schedule', '--env', 'prod', '--from', from, '--to', to])).code).toBe(2);
  });
});
