import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-builds-');
const build = (buildId: string, extra: Record<string, unknown> = {}) => ({
  ok: true,
  buildId,
  envId: 'env:prod',
  status: 'ok',
  mode: 'full',
  artifacts: 12,
  durationMs: 340,
  startedAt: '2026-11-25T10:00:00.000Z',
  ...extra,
});

describe('cms builds', () => {
  it('lists the history with the live build marked and the total', async () => {
    const server = await t.serve({
      'GET /api/build/history': () => ({
        body: [build('b2', { live: true }), build('b1', { status: 'error', ok: false })],
        headers: { 'x-total-count': '7' },
      }),
    });
    const result = await t.cli(['builds', 'history', '--env', 'prod', '--limit', '2']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^ +BUILD ID +ENV ID +STATUS +MODE +PURPOSE +ARTIFACTS +DURATION MS +STARTED AT$/,
    );
    expect(lines[1]).toMatch(/^\* +b2 +env:prod +ok /);
    expect(lines[2]).toMatch(/^ +b1 +env:prod +error /);
    expect(lines[3]).toBe('1-2 of 7');
    expect(server.requests[0]?.url).toBe('/api/build/history?env=prod&limit=2');
  });

  it('shows one build, exits 1 when it ended in error', async () => {
    await t.serve({
      'GET /api/build/status/b1': () => ({
        body: build('b1', { status: 'error', ok: false, error: 'boom' }),
      }),
      'GET /api/build/last': () => ({ body: build('b2', { live: true }) }),
    });
    const failed = await t.cli(['builds', 'status', 'b1']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('Build b1 on env:prod: error');
    expect(failed.stdout).toContain('error: boom');
    const last = await t.cli(['builds', 'last', '--env', 'prod']);
    expect(last.code).toBe(0);
    expect(last.stdout).toContain('Build b2 on env:prod: ok (live)');
  });

  it('rolls back to an earlier build', async () => {
    const server = await t.serve({
      'POST /api/build/rollback/b1': () => ({
        body: { ok: true, buildId: 'b1', envId: 'env:prod', rolledBackFrom: 'b2', deploy: null },
      }),
    });
    const result = await t.cli(['builds', 'rollback', 'b1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('env:prod now serves build b1 (was b2).\n');
    expect(server.hits('POST /api/build/rollback/b1')).toHaveLength(1);
  });
});

describe('cms builds cancel and prune', () => {
  it('asks a running build to stop, and prunes old versions', async () => {
    const server = await t.serve({
      'POST /api/build/cancel/b3': () => ({ body: build('b3', { status: 'running' }) }),
      'POST /api/build/prune': () => ({ body: { envId: 'env:dev', removed: ['b1', 'b2'], kept: 3 } }),
    });
    const cancelled = await t.cli(['builds', 'cancel', 'b3']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('Asked build b3 to stop');
    const pruned = await t.cli(['builds', 'prune', '--env', 'dev', '--keep', '3']);
    expect(pruned.stdout).toBe('Pruned 2 build version(s) of env:dev (b1, b2); 3 kept.\n');
    expect(server.hits('POST /api/build/prune')[0]?.body).toEqual({ env: 'dev', keep: 3 });
  });
});
