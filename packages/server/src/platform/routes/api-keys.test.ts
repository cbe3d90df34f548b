import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform, type TestUser } from '../../../test/helpers/test-platform';

let tp: TestPlatform;
let siteId: string;
let otherSite: string;
let admin: TestUser;

const headers = (key: string, site = siteId) => ({ authorization: `Bearer ${key}`, 'x-site-id': site });

async function newSite(name: string): Promise<string> {
  const res = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name },
  });
  return res.json().id;
}

beforeEach(async () => {
  tp = await startTestPlatform();
  siteId = await newSite('Keys');
  otherSite = await newSite('Other');
  admin = await tp.addUser({ name: 'admin', siteId, role: 'admin' });
});
afterEach(async () => {
  await tp.close();
});

describe('API keys', () => {
  it('shows the secret once, stores only its hash and lists metadata only', async () => {
    const res = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: headers(admin.key),
      payload: { name: 'ci', role: 'publisher' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created.secret).toMatch(/^tk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'ci', role: 'publisher', siteId, allowedSites: [siteId] });
    expect(created.secret.startsWith(created.prefix)).toBe(true);

    const stored = await tp.app.trellis.platform.getNode(created.id);
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(16));
    expect(stored?.props.hash).toMatch(/^[0-9a-f]{64}$/);

    const list = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/api-keys',
      headers: headers(admin.key),
    });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.secret.slice(16));
    expect(list.json().map((k: { id: string }) => k.id)).toContain(created.id);
    expect(list.json().every((k: Record<string, unknown>) => !('secret' in k) && !('hash' in k))).toBe(true);

    const use = await tp.app.inject({
      method: 'GET',
      url: `/api/sites/${siteId}`,
      headers: headers(created.secret),
    });
    expect(use.statusCode).toBe(200);
  });

  it('never mints a key above the caller role, and the key acts with its own role', async () => {
    const editor = await tp.addUser({ name: 'ed', siteId, role: 'editor' });
    const denied = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: headers(editor.key),
      payload: { name: 'x', role: 'viewer' },
    });
    expect(denied.statusCode).toBe(403);
    expect(
      (
        await tp.app.inject({
          method: 'POST',
          url: '/api/auth/api-keys',
          headers: headers(admin.key),
          payload: { name: 'x', role: 'owner' },
        })
      ).statusCode,
    ).toBe(400);
    const viewerKey = (
      await tp.app.inject({
        method: 'POST',
        url: '/api/auth/api-keys',
        headers: headers(admin.key),
        payload: { name: 'ro', role: 'viewer', siteId: otherSite, userId: 'user:owner' },
      })
    ).json();
    expect(viewerKey.siteId).toBe(siteId);
    expect(viewerKey.allowedSites).toEqual([siteId]);
    // A viewer key of an admin cannot manage members or keys.
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/auth/api-keys', headers: headers(viewerKey.secret) }))
        .statusCode,
    ).toBe(403);
    // And it does not work on another site, even one its creator could reach.
    expect(
      (
        await tp.app.inject({
          method: 'GET',
          url: `/api/sites/${otherSite}`,
          headers: headers(viewerKey.secret, otherSite),
        })
      ).statusCode,
    ).toBe(403);
  });

  it('restricts a key to its allowed sites, which the creator must administer', async () => {
    const refused = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: headers(admin.key),
      payload: { name: 'wide', role: 'viewer', allowedSites: [otherSite] },
    });
    expect(refused.statusCode).toBe(403);
    const wide = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: headers(tp.ownerKey),
      payload: { name: 'wide', role: 'viewer', allowedSites: [otherSite] },
    });
    expect(wide.statusCode, wide.body).toBe(201);
    expect(wide.json().allowedSites).toEqual([siteId, otherSite].sort());
  });

  it('revokes a key so it stops working at once, invalidating its cache entry', async () => {
    const created = (
      await tp.app.inject({
        method: 'POST',
        url: '/api/auth/api-keys',
        headers: headers(admin.key),
        payload: { name: 'short-lived', role: 'editor' },
      })
    ).json();
    const use = () =>
      tp.app.inject({ method: 'GET', url: `/api/sites/${siteId}`, headers: headers(created.secret) });
    expect((await use()).statusCode).toBe(200);
    expect((await use()).statusCode).toBe(200);
    const before = tp.app.trellis.apiKeyCache.stats();
    const del = await tp.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${created.id}`,
      headers: headers(admin.key),
    });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ ok: true, id: created.id });
    const after = tp.app.trellis.apiKeyCache.stats();
    expect(after.invalidations).toBe(before.invalidations + 1);
    const refused = await use();
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('invalid_credential');
    const list = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/api-keys',
      headers: headers(admin.key),
    });
    expect(list.json().map((k: { id: string }) => k.id)).not.toContain(created.id);
    expect(
      (
        await tp.app.inject({
          method: 'DELETE',
          url: `/api/auth/api-keys/${created.id}`,
          headers: headers(admin.key),
        })
      ).statusCode,
    ).toBe(404);
    const audit = await tp.app.trellis.platform.auditRecords();
    expect(audit.at(-1)).toMatchObject({ action: 'apikey.revoke', target: created.id });
  });

  it('cannot revoke a key of another site', async () => {
    const otherAdmin = await tp.addUser({ name: 'oa', siteId: otherSite, role: 'admin' });
    const res = await tp.app.inject({
      method: 'DELETE',
      url: `/api/auth/api-keys/${admin.keyId}`,
      headers: headers(otherAdmin.key, otherSite),
    });
    expect(res.statusCode).toBe(404);
    expect(
      (await tp.app.inject({ method: 'GET', url: `/api/sites/${siteId}`, headers: headers(admin.key) }))
        .statusCode,
    ).toBe(200);
  });

  it('counts cache hits and misses on /metrics/apikey-cache', async () => {
    const metrics = async () =>
      (await tp.app.inject({ method: 'GET', url: '/api/metrics/apikey-cache' })).json();
    const start = await metrics();
    await tp.app.inject({ method: 'GET', url: '/api/sites', headers: headers(admin.key) });
    await tp.app.inject({ method: 'GET', url: '/api/sites', headers: headers(admin.key) });
    const end = await metrics();
    expect(end.hits + end.misses).toBe(start.hits + start.misses + 2);
    expect(end.size).toBeGreaterThanOrEqual(1);
    expect(Object.keys(end).sort()).toEqual(['evictions', 'hits', 'invalidations', 'misses', 'size']);
  });
});
