import { sequence } from '@trelliscms/sdk/test-support';
import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../test-support/command-test';

const t = setUpCommandTests();

describe('waiting on a rate limit', () => {
  it('says so and for how long, then carries on', async () => {
    const running = { ok: true, buildId: 'b1', envId: 'env:dev', status: 'running' };
    await t.serve({
      'POST /api/build': sequence(
        {
          status: 429,
          body: { error: 'Too many requests', code: 'rate_limited' },
          headers: { 'retry-after': '1' },
        },
        { status: 202, body: { ...running, statusUrl: '/api/build/status/b1' } },
      ),
      'GET /api/build/status/b1': () => ({
        body: { ...running, status: 'ok', artifacts: 1, durationMs: 1, transformErrors: [], deploy: null },
      }),
    });
    const result = await t.cli(['build', '--poll-interval', '5']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'Rate limited by the server (429): waiting 1 s before retrying POST /api/build…',
    );
    expect(result.stdout).toContain('Build b1 ok');
  });
});
