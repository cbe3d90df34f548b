import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests('cms-bugs-');
const report = {
  id: 'bug:1',
  message: 'Publishing hangs',
  context: { page: '/types' },
  requestId: '6f1c2d3e-0000-4000-8000-000000000000',
  reporter: 'user:ada',
  reporterKey: 'key:1',
  userAgent: 'trellis-cli',
  createdAt: '2026-11-25T10:00:00.000Z',
};

describe('cms bugs', () => {
  it('prints the request id of a server error, ready for a report', async () => {
    await t.serve({
      'GET /api/bugs': () => ({
        status: 500,
        body: { error: 'An internal error occurred.', code: 'internal_error' },
        headers: { 'x-request-id': 'req-42' },
      }),
    });
    const failed = await t.cli(['bugs', 'list']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      'Request id: req-42 (report it: cms bugs report "<what you did>" --request-id req-42)',
    );
  });

  it('reports a problem with its request id and context, and lists reports by request id', async () => {
    const server = await t.serve({
      'POST /api/bugs': () => ({ status: 201, body: report }),
      'GET /api/bugs': () => ({ body: [report], headers: { 'x-total-count': '1' } }),
    });
    const reported = await t.cli([
      'bugs',
      'report',
      'Publishing hangs',
      '--request-id',
      report.requestId,
      '--context',
      '{"page":"/types"}',
    ]);
    expect(reported.code, reported.stderr).toBe(0);
    expect(reported.stdout).toContain(`Reported bug:1 (request ${report.requestId}).`);
    expect(server.hits('POST /api/bugs')[0]?.body).toEqual({
      message: 'Publishing hangs',
      requestId: report.requestId,
      context: { page: '/types' },
    });
    const listed = await t.cli(['bugs', 'list', '--request-id', report.requestId]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Publishing hangs');
    expect(server.hits('GET /api/bugs')[0]?.url).toBe(`/api/bugs?requestId=${report.requestId}`);

    const bad = await t.cli(['bugs', 'report', 'x', '--context', '[1]']);
    expect(bad.stderr).toContain('--context must be a JSON object');
    expect(bad.code).toBe(2);
  });
});
