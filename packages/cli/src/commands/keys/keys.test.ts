import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const graphKey = {
  id: 'key:g0123456789ab',
  name: 'etl',
  role: 'editor',
  siteId: 'site:blog',
  allowedSites: ['site:blog'],
  prefix: 'tg_0123456789ab',
  createdAt: '2026-05-01T09:00:00.000Z',
  createdBy: 'user:sam',
  expiresAt: null,
  graph: 'site-blog',
  secret: `tg_0123456789ab_${'x'.repeat(43)}`,
};

describe('cms keys create --graph', () => {
  it('asks for an engine-direct graph-level key and prints its secret once', async () => {
    const server = await t.serve({ 'POST /api/auth/api-keys': () => ({ status: 201, body: graphKey }) });
    const result = await t.cli(['keys', 'create', '--name', 'etl', '--role', 'editor', '--graph']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hits('POST /api/auth/api-keys')[0]!.body).toEqual({
      name: 'etl',
      role: 'editor',
      graph: true,
    });
    expect(result.stdout).toContain('graph-level key for site-blog');
    expect(result.stdout).toContain(graphKey.secret);
  });

  it('mints a plain key without --graph', async () => {
    const server = await t.serve({
      'POST /api/auth/api-keys': () => ({
        status: 201,
        body: { ...graphKey, id: 'key:0123456789ab', prefix: 'tk_0123456789ab', graph: undefined },
      }),
    });
    const result = await t.cli(['keys', 'create', '--name', 'ci', '--role', 'publisher']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hits('POST /api/auth/api-keys')[0]!.body).toEqual({ name: 'ci', role: 'publisher' });
  });
});
