import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

describe('cms deployments', () => {
  it('lists recent deployments of an environment as a table', async () => {
    const server = await t.serve({
      'GET /api/releases/deployments': () => ({
        body: [
          deploymentFixture('2', 'failed', { error: 'template post does not parse' }),
          deploymentFixture('1', 'deployed', { buildId: 'b1', intent: 'launch' }),
        ],
      }),
    });
    const result = await t.cli(['deployments', 'list', '--env', 'prod', '--limit', '10']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+RELEASE\s+ENV\s+VALID FROM\s+BUILD\s+NOTE$/);
    expect(lines[1]).toMatch(
      /^deploy:2\s+failed\s+release:spring\s+env:prod\s+\S+\s+template post does not parse$/,
    );
    expect(lines[2]).toMatch(/^deploy:1\s+deployed\s+release:spring\s+env:prod\s+\S+\s+b1\s+launch$/);
    expect(server.hits('GET /api/releases/deployments')[0]?.url).toBe(
      '/api/releases/deployments?envId=env%3Aprod&limit=10',
    );
  });

  it('shows a deployment, exiting 1 when it failed', async () => {
    await t.serve({
      'GET /api/releases/deployments/deploy%3A1': () => ({
        body: deploymentFixture('1', 'deployed', { buildId: 'b1' }),
      }),
      'GET /api/releases/deployments/deploy%3A2': () => ({
        body: deploymentFixture('2', 'failed', { error: 'disk full' }),
      }),
    });
    const live = await t.cli(['deployments', 'show', 'deploy:1']);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toContain('deploy:1: release:spring is live on env:prod (build b1).');
    const failed = await t.cli(['deployments', 'show', '2', '--json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'failed', error: 'disk full' });
  });

  it('retries a failed deployment and reports the outcome', async () => {
    const server = await t.serve({
      'POST /api/releases/deployments/deploy%3A2/retry': () => ({
        status: 201,
        body: deploymentFixture('2', 'deployed', { buildId: 'b3' }),
      }),
    });
    const result = await t.cli(['deployments', 'retry', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Retrying deploy:2');
    expect(result.stdout).toBe('deploy:2: release:spring is live on env:prod (build b3).\n');
    expect(server.hits('POST /api/releases/deployments/deploy%3A2/retry')).toHaveLength(1);
  });
});
