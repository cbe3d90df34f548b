import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { deploymentFixture } from '../../test-support/release-fixtures';

const t = setUpCommandTests();

describe('cms queue', () => {
  it('lists scheduled deployments with their prebuilt build or last prebuild error', async () => {
    const server = await t.serve({
      'GET /api/releases/queue': () => ({
        body: [
          deploymentFixture('1', 'pending', { validFrom: '2026-06-01T09:00:00.000Z', prebuiltBuildId: 'b5' }),
          deploymentFixture('2', 'pending', {
            validFrom: '2026-06-02T09:00:00.000Z',
            error: 'template missing',
          }),
        ],
      }),
    });
    const result = await t.cli(['queue', '--env', 'prod', '--limit', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /deploy:1\s+pending\s+release:spring\s+env:prod\s+2026-06-01T09:00:00.000Z\s+b5\n/,
    );
    expect(result.stdout).toMatch(/deploy:2\s+pending\s+.*2026-06-02T09:00:00.000Z\s+template missing\n/);
    expect(result.stdout).toContain('2 scheduled');
    expect(server.hits('GET /api/releases/queue')[0]?.url).toBe(
      '/api/releases/queue?envId=env%3Aprod&limit=2',
    );
  });

  it('says (none) when nothing is scheduled and prints [] with --json', async () => {
    await t.serve({ 'GET /api/releases/queue': () => ({ body: [] }) });
    expect((await t.cli(['queue'])).stdout).toBe('(none)\n');
    expect(JSON.parse((await t.cli(['queue', '--json'])).stdout)).toEqual([]);
  });
});
