import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

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

  it('sends --channels as outputChannels, refusing an unknown channel', async () => {
    const server = await t.serve({
      'POST /api/build': () => ({
        body: {
          ok: true,
          buildId: 'b8',
          mode: 'full',
          artifacts: 3,
          durationMs: 5,
          transformErrors: [],
          deploy: null,
        },
      }),
    });
    const result = await t.cli(['build', '--mode', 'full', '--channels', 'pages, search']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.hits('POST /api/build')[0]?.body).toEqual({
      async: false,
      mode: 'full',
      outputChannels: ['pages', 'search'],
    });
    const refused = await t.cli(['build', '--channels', 'pages,rss']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('"rss" is not a channel');
  });

  it('exits 1 when a sync build fails', async () => {
    await t.serve({
      'POST /api/build': () => ({
        body: {
          ok: false,
          buildId: 'b8',
          mode: 'full',
          artifacts: 0,
          durationMs: 5,
          transformErrors: [],
          deploy: null,
          error: 'template post does not parse',
        },
      }),
    });
    const result = await t.cli(['build']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Build b8 FAILED');
    expect(result.stdout).toContain('error: template post does not parse');
  });
});
