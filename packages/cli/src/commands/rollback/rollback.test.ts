import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

const winter = deploymentFixture('1', 'deployed', {
  releaseId: 'release:winter',
  validFrom: '2026-04-01T10:00:00.000Z',
  createdAt: '2026-04-01T10:00:00.000Z',
});
const spring = deploymentFixture('2', 'deployed', { buildId: 'b2' });
const rolledBack = deploymentFixture('3', 'deployed', {
  releaseId: 'release:winter',
  rollbackOf: 'deploy:2',
  buildId: 'b1',
});

describe('cms rollback', () => {
  it('rolls a deployment back to the release given with --to', async () => {
    const server = await t.serve({
      'POST /api/releases/deployments/deploy%3A2/rollback': () => ({ status: 201, body: rolledBack }),
    });
    const result = await t.cli(['rollback', '2', '--to', 'winter']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Rolled back deploy:2 (now superseded) to release:winter.\ndeploy:3: release:winter is live on env:prod (build b1).\n',
    );
    expect(server.hits('POST /api/releases/deployments/deploy%3A2/rollback')[0]?.body).toEqual({
      rollbackToReleaseId: 'release:winter',
    });
  });

  it("with --env rolls the environment's live deployment back to the release live before it", async () => {
    const server = await t.serve({
      'GET /api/releases/deployments': () => ({ body: [spring, winter] }),
      'POST /api/releases/deployments/deploy%3A2/rollback': () => ({ status: 201, body: rolledBack }),
    });
    const result = await t.cli(['rollback', '--env', 'prod']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'Rolled env:prod back from release:spring (deploy:2, now superseded) to release:winter.',
    );
    expect(server.hits('GET /api/releases/deployments')[0]?.url).toBe(
      '/api/releases/deployments?envId=env%3Aprod&limit=500',
    );
    expect(server.hits('POST /api/releases/deployments/deploy%3A2/rollback')[0]?.body).toEqual({
      rollbackToReleaseId: 'release:winter',
    });
  });

  it('with --env --dry-run prints the plan and changes nothing', async () => {
    const server = await t.serve({ 'GET /api/releases/deployments': () => ({ body: [winter, spring] }) });
    const result = await t.cli(['rollback', '--env', 'prod', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'Would roll env:prod back from release:spring (deploy:2) to release:winter (live before, deploy:1).',
    );
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('exits 1 with the reason when the environment has nothing to roll back to', async () => {
    const server = await t.serve({ 'GET /api/releases/deployments': () => ({ body: [spring] }) });
    const result = await t.cli(['rollback', '--env', 'prod']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: No release other than the live one was ever live in env:prod, so there is nothing to roll back to.\n',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('exits 2 when it is not told what to roll back, or told twice', async () => {
    const server = await t.serve({});
    expect((await t.cli(['rollback'])).code).toBe(2);
    expect((await t.cli(['rollback', 'deploy:2'])).stderr).toContain('a deployment id with --to <release>');
    expect((await t.cli(['rollback', '--env', 'prod', '--to', 'winter'])).code).toBe(2);
    expect((await t.cli(['rollback', 'deploy:2', '--to', 'winter', '--dry-run'])).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
