import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureLogs } from '../../../test/helpers/capture-logs';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

describe('/api/bugs', () => {
  let tp: TestPlatform;
  let logs: ReturnType<typeof captureLogs>;
  const owner = () => ({ authorization: `Bearer ${tp.ownerKey}` });
  beforeEach(async () => {
    logs = captureLogs();
    tp = await startTestPlatform({
      env: { LOG_LEVEL: 'info', BUGS_RATE_LIMIT: '3' },
      logStream: logs.stream,
    });
  });
  afterEach(async () => {
    await tp.close();
  });

  it('stores a report whose request id is the one the server logged and answered with', async () => {
    const user = await tp.addUser({ name: 'reporter' });
    const auth = { authorization: `Bearer ${user.key}` };
    // a request that goes wrong for the user: its answer names its id, as do its log lines
    const failed = await tp.app.inject({ method: 'GET', url: '/api/types', headers: auth });
    expect(failed.statusCode).toBe(400);
    const requestId = failed.headers['x-request-id'] as string;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = logs.lines().filter((line) => line.requestId === requestId);
    expect(logged.map((line) => line.msg)).toContain('request completed');

    const reported = await tp.app.inject({
      method: 'POST',
      url: '/api/bugs',
      headers: { ...auth, 'user-agent': 'trellis-admin/1.0' },
      payload: { message: 'Types would not load', context: { page: '/types' }, requestId },
    });
    expect(reported.statusCode, reported.body).toBe(201);
    expect(reported.json()).toMatchObject({
      message: 'Types would not load',
      context: { page: '/types' },
      requestId,
      reporter: user.userId,
      reporterKey: user.keyId,
      userAgent: 'trellis-admin/1.0',
    });
    await tp.app.inject({ method: 'POST', url: '/api/bugs', headers: auth, payload: { message: 'another' } });

    // the operator finds the report by the id of the log line, and the log line by the report
    const found = await tp.app.inject({
      method: 'GET',
      url: `/api/bugs?requestId=${requestId}`,
      headers: owner(),
    });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.headers['x-total-count']).toBe('1');
    const [report] = found.json() as Array<{ id: string; requestId: string }>;
    expect(
      logs.lines().some((line) => line.requestId === report?.requestId && line.msg === 'request completed'),
    ).toBe(true);
    const all = await tp.app.inject({ method: 'GET', url: '/api/bugs?limit=1', headers: owner() });
    expect(all.headers['x-total-count']).toBe('2');
    expect(all.json()).toHaveLength(1);

    // reporters cannot read or delete reports; the platform owner can
    expect((await tp.app.inject({ method: 'GET', url: '/api/bugs', headers: auth })).statusCode).toBe(403);
    expect(
      (await tp.app.inject({ method: 'DELETE', url: `/api/bugs/${report?.id}`, headers: auth })).statusCode,
    ).toBe(403);
    expect(
      (await tp.app.inject({ method: 'DELETE', url: `/api/bugs/${report?.id}`, headers: owner() }))
        .statusCode,
    ).toBe(204);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/bugs', headers: owner() })).headers['x-total-count'],
    ).toBe('1');
  });

  it('refuses anonymous reports, an oversized context, and reports past the rate limit', async () => {
    const anonymous = await tp.app.inject({ method: 'POST', url: '/api/bugs', payload: { message: 'hi' } });
    expect(anonymous.statusCode).toBe(401);
    const big = await tp.app.inject({
      method: 'POST',
      url: '/api/bugs',
      headers: owner(),
      payload: { message: 'big', context: { blob: 'x'.repeat(17 * 1024) } },
    });
    expect(big.statusCode).toBe(400);
    expect(big.json().error).toMatch(/context/);
    for (let i = 0; i < 3; i++) {
      const ok = await tp.app.inject({
        method: 'POST',
        url: '/api/bugs',
        headers: owner(),
        payload: { message: `n${i}` },
      });
      expect(ok.statusCode).toBe(201);
    }
    const limited = await tp.app.inject({
      method: 'POST',
      url: '/api/bugs',
      headers: owner(),
      payload: { message: 'n4' },
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});
