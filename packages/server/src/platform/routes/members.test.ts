import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform, type TestUser } from '../../../test/helpers/test-platform';

let tp: TestPlatform;
let siteId: string;
let admin: TestUser;
let editor: TestUser;
let viewer: TestUser;
let outsider: TestUser;

const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'x-site-id': siteId });

beforeEach(async () => {
  tp = await startTestPlatform();
  const site = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name: 'Team' },
  });
  siteId = site.json().id;
  admin = await tp.addUser({ name: 'admin', siteId, role: 'admin' });
  editor = await tp.addUser({ name: 'editor', siteId, role: 'editor' });
  viewer = await tp.addUser({ name: 'viewer', siteId, role: 'viewer' });
  outsider = await tp.addUser({ name: 'outsider' });
});
afterEach(async () => {
  await tp.close();
});

describe('access and members', () => {
  it('lists site users to admins only', async () => {
    const res = await tp.app.inject({
      method: 'GET',
      url: '/api/access/site-users',
      headers: headers(admin.key),
    });
    expect(res.statusCode).toBe(200);
    const roles = Object.fromEntries(
      res.json().map((m: { userId: string; role: string }) => [m.userId, m.role]),
    );
    expect(roles[admin.userId]).toBe('admin');
    expect(roles[viewer.userId]).toBe('viewer');
    expect(roles[outsider.userId]).toBeUndefined();
    for (const key of [editor.key, viewer.key]) {
      expect(
        (await tp.app.inject({ method: 'GET', url: '/api/access/site-users', headers: headers(key) }))
          .statusCode,
      ).toBe(403);
      expect(
        (await tp.app.inject({ method: 'GET', url: '/api/auth/users', headers: headers(key) })).statusCode,
      ).toBe(403);
    }
    const members = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: headers(admin.key),
    });
    expect(members.json()).toEqual(res.json());
  });

  it('grants access to an existing user and audits it', async () => {
    const grant = await tp.app.inject({
      method: 'POST',
      url: '/api/access/grant',
      headers: headers(admin.key),
      payload: { userId: outsider.userId, role: 'publisher' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    expect(grant.json()).toMatchObject({
      ok: true,
      member: { userId: outsider.userId, role: 'publisher', siteId },
    });
    const audit = await tp.app.trellis.platform.auditRecords();
    expect(audit.at(-1)).toMatchObject({ action: 'member.grant', target: outsider.userId });
    expect(
      (
        await tp.app.inject({
          method: 'POST',
          url: '/api/access/grant',
          headers: headers(admin.key),
          payload: { userId: 'user:nobody', role: 'editor' },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('never lets anyone grant above their own role, nor act on a higher role', async () => {
    // The grant route accepts admin, editor, publisher; viewer and owner are not grantable there.
    for (const role of ['owner', 'viewer']) {
      const res = await tp.app.inject({
        method: 'POST',
        url: '/api/access/grant',
        headers: headers(admin.key),
        payload: { userId: outsider.userId, role },
      });
      expect(res.statusCode).toBe(400);
    }
    const toOwner = await tp.app.inject({
      method: 'PUT',
      url: `/api/auth/users/${editor.userId}/role`,
      headers: headers(admin.key),
      payload: { role: 'owner' },
    });
    expect(toOwner.statusCode).toBe(400);
    // An editor cannot manage members at all.
    const self = await tp.app.inject({
      method: 'PUT',
      url: `/api/auth/users/${editor.userId}/role`,
      headers: headers(editor.key),
      payload: { role: 'admin' },
    });
    expect(self.statusCode).toBe(403);
    // An admin key minted with a lower role acts with that role.
    const minted = await tp.app.inject({
      method: 'POST',
      url: '/api/auth/api-keys',
      headers: headers(admin.key),
      payload: { name: 'low', role: 'editor' },
    });
    const low = minted.json().secret as string;
    const escalate = await tp.app.inject({
      method: 'POST',
      url: '/api/access/grant',
      headers: headers(low),
      payload: { userId: outsider.userId, role: 'admin' },
    });
    expect(escalate.statusCode).toBe(403);
  });

  it('changes a role and ignores unknown body fields (mass assignment)', async () => {
    const res = await tp.app.inject({
      method: 'PUT',
      url: `/api/auth/users/${viewer.userId}/role`,
      headers: headers(admin.key),
      payload: { role: 'editor', siteId: 'site:elsewhere', userId: admin.userId, platformRole: 'owner' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ userId: viewer.userId, role: 'editor', siteId });
    const user = await tp.app.trellis.platform.getNode(viewer.userId);
    expect(user?.props.platformRole).toBeNull();
    const adminEdge = await tp.app.trellis.platform.getEdges({ from: admin.userId, type: 'MEMBER_OF' });
    expect(adminEdge.map((e) => e.props.role)).toEqual(['admin']);
    expect(
      (
        await tp.app.inject({
          method: 'PUT',
          url: `/api/auth/users/${outsider.userId}/role`,
          headers: headers(admin.key),
          payload: { role: 'editor' },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('revokes access at once, and an admin cannot be revoked by a lower role', async () => {
    const res = await tp.app.inject({
      method: 'DELETE',
      url: `/api/auth/users/${viewer.userId}`,
      headers: headers(admin.key),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true, userId: viewer.userId, siteId });
    // The viewer's key acts for the viewer, who no longer has access.
    expect(
      (await tp.app.inject({ method: 'GET', url: `/api/sites/${siteId}`, headers: headers(viewer.key) }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await tp.app.inject({
          method: 'DELETE',
          url: `/api/auth/users/${viewer.userId}`,
          headers: headers(admin.key),
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await tp.app.inject({
          method: 'DELETE',
          url: `/api/auth/users/${admin.userId}`,
          headers: headers(editor.key),
        })
      ).statusCode,
    ).toBe(403);
  });
});
