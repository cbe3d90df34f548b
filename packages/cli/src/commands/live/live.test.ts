import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const state = {
  envId: 'env:prod',
  atTime: '2026-05-01T12:00:00.000Z',
  revision: 7,
  buildId: 'b12',
  items: [
    {
      itemId: 'post:hello',
      type: 'post',
      version: 3,
      hash: 'sha256:3333333333333333',
      since: '2026-05-01T10:00:00.000Z',
      cause: 'deployment',
      deploymentId: 'deploy:1',
      releaseId: 'release:spring',
    },
    {
      itemId: 'page:about',
      type: 'page',
      version: 1,
      hash: 'sha256:1111',
      since: '2026-04-01T10:00:00.000Z',
      cause: 'publish',
      deploymentId: null,
      releaseId: null,
    },
  ],
};

describe('cms live', () => {
  it('lists the live items of an environment with the revision and the serving build', async () => {
    const server = await t.serve({ 'GET /api/releases/live': () => ({ body: state }) });
    const result = await t.cli(['live', '--env', 'prod', '--at', '2026-05-01T14:00+02:00']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'env:prod at 2026-05-01T12:00:00.000Z: live revision 7, 2 item(s), served by build b12.',
    );
    expect(lines[1]).toMatch(/^ITEM\s+VERSION\s+SINCE\s+CAUSE\s+RELEASE\s+HASH$/);
    expect(lines[2]).toMatch(
      /^post:hello\s+3\s+2026-05-01T10:00:00.000Z\s+deployment\s+release:spring\s+sha256:333333333333$/,
    );
    expect(lines[3]).toMatch(/^page:about\s+1\s+2026-04-01T10:00:00.000Z\s+publish\s+sha256:1111$/);
    expect(server.hits('GET /api/releases/live')[0]?.url).toBe(
      '/api/releases/live?envId=env%3Aprod&atTime=2026-05-01T12%3A00%3A00.000Z',
    );
    const json = await t.cli(['live', '--env', 'env:prod', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(state);
    expect(server.hits('GET /api/releases/live')[1]?.url).toBe('/api/releases/live?envId=env%3Aprod');
  });
});
