import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureLogs } from '../../../test/helpers/capture-logs';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

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

  it('serves a repeated credential and site from the access cache, yet a role change, a revoked key and an expired key take effect at once', async () => {
    tp = await startTestPlatform();
    const owner = { authorization: `Bearer ${tp.ownerKey}` };
    const siteId = (
      await tp.app.inject({ method: 'POST', url: '/api/sites', headers: owner, payload: { name: 'Cached' } })
    ).json().id;
    const admin = await tp.addUser({ name: 'admin', siteId, role: 'admin' });
    const editor = await tp.addUser({ name: 'editor', siteId, role: 'editor' });
    const as = (key: string) => ({ authorization: `Bearer ${key}`, 'x-site-id': siteId });
    const createType = (key: string, name: string) =>
      tp.app.inject({
        method: 'POST',
        url: '/api/types',
        headers: as(key),
        payload: {
          name,
          label: name,
          nodeLabel: 'Post',
          keyField: 'title',
          fields: [{ name: 'title', type: 'string', required: true }],
        },
      });
    const listTypes = (key: string) => tp.app.inject({ method: 'GET', url: '/api/types', headers: as(key) });
    const stats = async () =>
      (await tp.app.inject({ method: 'GET', url: '/api/metrics/apikey-cache' })).json();

    // Warm: the second and third requests are served from the resolved access (counted as hits).
    expect((await listTypes(editor.key)).statusCode).toBe(200);
    const warm = await stats();
    expect((await listTypes(editor.key)).statusCode).toBe(200);
    expect((await listTypes(editor.key)).statusCode).toBe(200);
    expect((await stats()).hits).toBe(warm.hits + 2);
    // The same credential on a site it has no access to is still refused.
    const other = (
      await tp.app.inject({ method: 'POST', url: '/api/sites', headers: owner, payload: { name: 'Other' } })
    ).json().id;
    expect(
      (
        await tp.app.inject({
          method: 'GET',
          url: '/api/types',
          headers: { ...as(editor.key), 'x-site-id': other },
        })
      ).statusCode,
    ).toBe(403);
    // Permission is checked per route even when access comes from the cache: editors cannot manage keys.
    expect((await createType(admin.key, 'post')).statusCode).toBe(201);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/auth/api-keys', headers: as(editor.key) })).statusCode,
    ).toBe(403);

    // The admin demotes the editor to viewer: the editor's very next request acts as a viewer.
    expect((await listTypes(editor.key)).statusCode).toBe(200);
    const demoted = await tp.app.inject({
      method: 'PUT',
      url: `/api/auth/users/${editor.userId}/role`,
      headers: as(admin.key),
      payload: { role: 'viewer' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    const write = await tp.app.inject({
      method: 'POST',
      url: '/api/content/post',
      headers: as(editor.key),
      payload: { title: 'X' },
    });
    expect(write.statusCode).toBe(403);

    // A revoked key stops at once, though it was just served from the cache.
    expect((await listTypes(admin.key)).statusCode).toBe(200);
    expect((await listTypes(admin.key)).statusCode).toBe(200);
    const revoked = await tp.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${admin.keyId}`,
      headers: as(tp.ownerKey),
    });
    expect([200, 204]).toContain(revoked.statusCode);
    expect((await listTypes(admin.key)).statusCode).toBe(401);

    // A key with an expiry is refused from its expiry on, even with a warm cache entry.
    const minted = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: { ...owner, 'x-site-id': siteId },
      payload: {
        name: 'short-lived',
        role: 'viewer',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(minted.statusCode, minted.body).toBe(201);
    const shortLived = minted.json().secret as string;
    expect((await listTypes(shortLived)).statusCode).toBe(200);
    expect((await listTypes(shortLived)).statusCode).toBe(200);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + 120_000);
    try {
      const expired = await listTypes(shortLived);
      expect(expired.statusCode).toBe(401);
      expect(expired.json().code).toBe('invalid_credential');
    } finally {
      clock.mockRestore();
    }
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
