import { sequence } from '@trelliscms/sdk/test-support';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

describe('cms deploy', () => {
  it('deploys now and reports the build that serves it', async () => {
    const server = await t.serve({
      'POST /api/releases/release%3Aspring/deploy': () => ({
        status: 201,
        body: deploymentFixture('1', 'deployed', { buildId: 'b42', intent: 'launch' }),
      }),
    });
    const result = await t.cli(['deploy', 'spring', '--env', 'prod', '--intent', 'launch']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Deploying release:spring to env:prod (building)');
    expect(result.stdout).toBe('deploy:1: release:spring is live on env:prod (build b42).\n');
    expect(server.hits('POST /api/releases/release%3Aspring/deploy')[0]?.body).toEqual({
      environmentId: 'env:prod',
      intent: 'launch',
    });
  });

  it('exits 1 and prints the error when the deployment failed; --json prints the deployment', async () => {
    await t.serve({
      'POST /api/releases/release%3Aspring/deploy': () => ({
        status: 201,
        body: deploymentFixture('2', 'failed', {
          error: 'template post does not parse',
          failedAt: '2026-05-01T10:00:05.000Z',
        }),
      }),
    });
    const result = await t.cli(['deploy', 'spring', '--env', 'prod', '--skip-review-gate']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        'deploy:2: deploying release:spring to env:prod FAILED: template post does not parse',
        '  The site that was live stays live. Retry with: cms deployments retry deploy:2',
        '',
      ].join('\n'),
    );
    const json = await t.cli(['deploy', 'spring', '--env', 'env:prod', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'deploy:2', status: 'failed' });
  });

  it('schedules with a relative --at, sending it as an ISO validFrom, without waiting', async () => {
    const server = await t.serve({
      'POST /api/releases/release%3Aspring/deploy': ({ body }) => ({
        status: 201,
        body: deploymentFixture('3', 'pending', { validFrom: (body as { validFrom: string }).validFrom }),
      }),
    });
    const before = Date.now();
    const result = await t.cli(['deploy', 'spring', '--env', 'prod', '--at', '+2h', '--async']);
    expect(result.code, result.stderr).toBe(0);
    const sent = server.hits('POST /api/releases/release%3Aspring/deploy')[0]?.body as { validFrom: string };
    const offset = Date.parse(sent.validFrom) - before;
    expect(offset).toBeGreaterThanOrEqual(7_200_000);
    expect(offset).toBeLessThan(7_200_000 + 60_000);
    expect(result.stdout).toBe(
      `deploy:3: release:spring goes live on env:prod at ${sent.validFrom} (pending).\n`,
    );
    expect(server.hits('GET /api/releases/deployments/deploy%3A3')).toHaveLength(0);
  });

  it('with --async follows the pending deployment until it is live', async () => {
    const server = await t.serve({
      'POST /api/releases/release%3Aspring/deploy': () => ({
        status: 201,
        body: deploymentFixture('4', 'pending'),
      }),
      'GET /api/releases/deployments/deploy%3A4': sequence(
        { body: deploymentFixture('4', 'pending') },
        { body: deploymentFixture('4', 'deployed', { buildId: 'b7' }) },
      ),
    });
    const result = await t.cli(['deploy', 'spring', '--env', 'prod', '--async', '--poll-interval', '5']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('deploy:4: pending (building env:prod)');
    expect(result.stdout).toBe('deploy:4: release:spring is live on env:prod (build b7).\n');
    expect(server.hits('POST /api/releases/release%3Aspring/deploy')[0]?.body).toEqual({
      environmentId: 'env:prod',
      async: true,
    });
    expect(server.hits('GET /api/releases/deployments/deploy%3A4')).toHaveLength(2);
  });

  it('exits 2 without --env or with a time it cannot read, before calling the server', async () => {
    const server = await t.serve({});
    const noEnv = await t.cli(['deploy', 'spring']);
    expect(noEnv.code).toBe(2);
    expect(noEnv.stderr).toContain("required option '--env <name>' not specified");
    const badTime = await t.cli(['deploy', 'spring', '--env', 'prod', '--at', 'tomorrow']);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('"tomorrow" is not a time');
    const noZone = await t.cli(['deploy', 'spring', '--env', 'prod', '--at', '2026-05-01T09:00']);
    expect(noZone.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('prints the review gate refusal with its code and exits 1', async () => {
    await t.serve({
      'POST /api/releases/release%3Aspring/deploy': () => ({
        status: 409,
        body: {
          error: 'Reviews of release:spring are stale.',
          code: 'review_gate',
          hint: 'Submit the release again: cms releases submit',
        },
      }),
    });
    const result = await t.cli(['deploy', 'spring', '--env', 'prod']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: 409 review_gate: Reviews of release:spring are stale.');
  });
});
