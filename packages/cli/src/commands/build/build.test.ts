import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';
import { runCli } from '../../test-support/run-cli';

const t = setUpCommandTests();

describe('cms build', () => {
  it('with --async follows the status to the end and reports the deploy', async () => {
    const running = { ok: true, buildId: 'b7', envId: 'env:dev', status: 'running' };
    let polls = 0;
    const server = await t.serve({
      'POST /api/build': () => ({ status: 202, body: { ...running, statusUrl: '/api/build/status/b7' } }),
      'GET /api/build/status/b7': () =>
        ++polls < 3
          ? { body: running }
          : {
              body: {
                ...running,
                status: 'ok',
                mode: 'full',
                artifacts: 42,
                durationMs: 900,
                transformErrors: [],
                deploy: {
                  ok: true,
                  bucket: 'dir',
                  keyPrefix: 'dev',
                  publicUrl: 'http://127.0.0.1/site',
                  filesUploaded: 42,
                  filesDeleted: 0,
                  bytes: 1234,
                  durationMs: 10,
                  serveCheck: null,
                },
              },
            },
    });
    const result = await t.cli([
      'build',
      '--async',
      '--env',
      'dev',
      '--mode',
      'full',
      '--poll-interval',
      '5',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Build b7 started on env:dev');
    expect(result.stdout).toContain('Build b7 ok: 42 artifact(s) in 900 ms (mode full).');
    expect(result.stdout).toContain('deployed 42 file(s), removed 0, 1234 bytes to http://127.0.0.1/site');
    expect(server.hits('POST /api/build')[0]?.body).toEqual({ env: 'dev', mode: 'full', async: true });
  });

  it('exits 1 when the build fails', async () => {
    await t.serve({
      'POST /api/build': () => ({
        status: 202,
        body: {
          ok: true,
          buildId: 'b8',
          envId: 'env:dev',
          status: 'running',
          statusUrl: '/api/build/status/b8',
        },
      }),
      'GET /api/build/status/b8': () => ({
        body: {
          ok: false,
          buildId: 'b8',
          envId: 'env:dev',
          status: 'error',
          mode: 'full',
          artifacts: 0,
          durationMs: 5,
          transformErrors: [],
          deploy: null,
          error: 'template post does not parse',
        },
      }),
    });
    const result = await t.cli(['build', '--poll-interval', '5']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Build b8 FAILED');
    expect(result.stdout).toContain('error: template post does not parse');
  });

  it('shows the phases and counts, and Ctrl-C asks the server to cancel the build', async () => {
    let interrupt: (() => void) | undefined;
    let cancelled = false;
    let polls = 0;
    const running = { ok: true, buildId: 'b9', envId: 'env:dev', status: 'running' };
    const server = await t.serve({
      'POST /api/build': () => ({ status: 202, body: { ...running, statusUrl: '/api/build/status/b9' } }),
      'POST /api/build/cancel/b9': () => {
        cancelled = true;
        return { body: { ...running, cancelRequested: true } };
      },
      'GET /api/build/status/b9': () => {
        polls++;
        if (polls === 1)
          return {
            body: { ...running, progress: { phase: 'plan', done: 0, total: 0, at: '2026-11-25T10:00:00Z' } },
          };
        if (polls === 2) {
          // The person presses Ctrl-C while the pages render.
          interrupt?.();
          return {
            body: {
              ...running,
              progress: { phase: 'render', done: 12, total: 600, at: '2026-11-25T10:00:01Z' },
            },
          };
        }
        return cancelled
          ? {
              body: {
                ...running,
                ok: false,
                status: 'error',
                cancelled: true,
                deploy: null,
                error: 'build cancelled on request; nothing was deployed',
              },
            }
          : { body: running };
      },
    });
    const result = await runCli(
      ['build', '--poll-interval', '5', '--url', server.url, '--key', 'k', '--site', 'site:blog'],
      {
        env: { XDG_CONFIG_HOME: join(t.dir, 'config') },
        cwd: t.dir,
        onInterrupt: (handler) => {
          interrupt = handler;
          return () => {
            interrupt = undefined;
          };
        },
      },
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('b9: plan');
    expect(result.stderr).toContain('b9: render 12/600');
    expect(result.stderr).toContain('Cancelling build b9');
    expect(server.hits('POST /api/build/cancel/b9')).toHaveLength(1);
    expect(result.stdout).toContain('Build b9 cancelled: nothing was deployed');
    expect(interrupt).toBeUndefined();
  });
});
