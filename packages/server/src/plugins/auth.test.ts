import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../platform/test-platform';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

function captureLogs(): {
  stream: PassThrough;
  lines: () => Array<Record<string, unknown>>;
  raw: () => string;
} {
  const stream = new PassThrough();
  let raw = '';
  stream.on('data', (chunk: Buffer) => {
    raw += chunk.toString('utf8');
  });
  return {
    stream,
    raw: () => raw,
    lines: () =>
      raw
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('authentication', () => {
  it('answers 401 unauthenticated without a credential and invalid_credential for a bad one', async () => {
    tp = await startTestPlatform();
    const none = await tp.app.inject({ method: 'GET', url: '/api/sites' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthenticated');
    for (const authorization of [
      'Bearer nope-not-a-key',
      'Basic dXNlcjpwYXNz',
      `Bearer ${tp.ownerKey}x`,
      'Bearer a.b.c',
    ]) {
      const res = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
    }
    expect(
      (
        await tp.app.inject({
          method: 'GET',
          url: '/api/sites',
          headers: { authorization: `Bearer ${tp.ownerKey}` },
        })
      ).statusCode,
    ).toBe(200);
    // Public routes need nothing.
    expect((await tp.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect((await tp.app.inject({ method: 'GET', url: '/api/metrics/apikey-cache' })).statusCode).toBe(200);
  });

  it('bootstraps the owner key only on the first start of an empty platform graph', async () => {
    tp = await startTestPlatform();
    expect(tp.app.ownerBootstrap).toMatchObject({ userId: 'user:owner', generated: false });
    const keys = await tp.app.trellis.platform.findNodes({ label: 'ApiKey' });
    expect(keys.total).toBe(1);
    expect(JSON.stringify(keys.nodes)).not.toContain(tp.ownerKey);
  });

  it('writes one JSON line per event with ts, level, component, msg, requestId, siteId and envId, and never a secret', async () => {
    const logs = captureLogs();
    tp = await startTestPlatform({ logStream: logs.stream, env: { LOG_LEVEL: 'info' } });
    const owner = { authorization: `Bearer ${tp.ownerKey}` };
    const site = (
      await tp.app.inject({ method: 'POST', url: '/api/sites', headers: owner, payload: { name: 'Logged' } })
    ).json();
    const created = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys?env=prod',
      headers: { ...owner, 'x-site-id': site.id },
      payload: {
        name: 'logged key',
        role: 'editor',
        secret: 'body-secret-value-123',
        password: 'hunter2-password',
      },
    });
    expect(created.statusCode).toBe(201);
    const secret = created.json().secret as string;
    await tp.app.inject({
      method: 'GET',
      url: `/api/sites?token=${secret}`,
      headers: { authorization: `Bearer ${secret}` },
    });
    await tp.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { authorization: `Bearer ${secret}broken` },
    });
    await tp.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${created.json().id}`,
      headers: { ...owner, 'x-site-id': site.id },
    });

    const raw = logs.raw();
    for (const forbidden of [
      secret,
      secret.slice(16),
      tp.ownerKey,
      'hunter2-password',
      'body-secret-value-123',
    ]) {
      expect(raw).not.toContain(forbidden);
    }
    const lines = logs.lines();
    expect(lines.length).toBeGreaterThan(5);
    const requestLines = lines.filter((line) => 'requestId' in line);
    expect(requestLines.length).toBeGreaterThan(5);
    for (const line of requestLines) {
      expect(Object.keys(line)).toEqual(
        expect.arrayContaining(['ts', 'level', 'component', 'msg', 'requestId', 'siteId', 'envId']),
      );
      expect(['info', 'warn', 'error']).toContain(line.level);
      expect(Date.parse(String(line.ts))).not.toBeNaN();
    }
    const keyLine = requestLines.find((line) => line.msg === 'api key created');
    expect(keyLine).toMatchObject({ siteId: site.id, envId: 'env:prod', component: 'server' });
  });
});
