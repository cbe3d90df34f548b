import type { InvitationAccepted, InvitationCreated, UserMatchList } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform, type TestUser } from '../../../test/helpers/test-platform';
import type { Clock } from '../../shared/clock';

let tp: TestPlatform;
let siteId: string;
let otherSiteId: string;
let admin: TestUser;
let editor: TestUser;
let now: number;
const clock: Clock = { now: () => new Date(now) };
const DAY = 86_400_000;

const headers = (key: string, site = siteId) => ({ authorization: `Bearer ${key}`, 'x-site-id': site });

async function createSite(name: string): Promise<string> {
  const res = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name, starterKit: 'none' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

beforeEach(async () => {
  now = Date.parse('2031-03-01T12:00:00.000Z');
  tp = await startTestPlatform({ clock });
  siteId = await createSite('Team');
  otherSiteId = await createSite('Elsewhere');
  admin = await tp.addUser({ name: 'sam', siteId, role: 'admin' });
  editor = await tp.addUser({ name: 'eve', siteId, role: 'editor' });
});
afterEach(async () => {
  await tp.close();
});

function find(key: string, query: string) {
  return tp.app.inject({ method: 'GET', url: `/api/access/users${query}`, headers: headers(key) });
}

function invite(key: string, payload: Record<string, unknown>) {
  return tp.app.inject({ method: 'POST', url: '/api/access/invitations', headers: headers(key), payload });
}

function accept(token: string, key?: string) {
  return tp.app.inject({
    method: 'POST',
    url: '/api/auth/invitations/accept',
    headers: key ? { authorization: `Bearer ${key}` } : {},
    payload: { token },
  });
}

async function invited(payload: Record<string, unknown>, key = admin.key): Promise<InvitationCreated> {
  const res = await invite(key, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function memberRole(userId: string, site = siteId): Promise<string | undefined> {
  const res = await tp.app.inject({
    method: 'GET',
    url: '/api/auth/users',
    headers: headers(tp.ownerKey, site),
  });
  return (res.json() as Array<{ userId: string; role: string }>).find((m) => m.userId === userId)?.role;
}

describe('finding a user to grant access to', () => {
  beforeEach(async () => {
    await tp.addUser({ name: 'ada' });
    await tp.addUser({ name: 'adam' });
    await tp.addUser({ name: 'bob' });
  });

  it('matches part of a name or e-mail for platform owners, exact e-mail first', async () => {
    const res = await find(tp.ownerKey, '?q=ADA');
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json() as UserMatchList;
    expect(list.items.map((u) => u.name)).toEqual(['ada', 'adam']);
    expect(list.total).toBe(2);
    expect(list.items[0]).toEqual({
      userId: expect.stringMatching(/^user:/),
      name: 'ada',
      email: 'ada@example.test',
      role: null,
    });
    expect(((await find(tp.ownerKey, '?q=adam@example.test')).json() as UserMatchList).items[0]?.name).toBe(
      'adam',
    );
    const first = (await find(tp.ownerKey, '?q=example.test&limit=1')).json() as UserMatchList;
    expect(first.items).toHaveLength(1);
    expect(first.total).toBeGreaterThanOrEqual(5);
    expect(((await find(tp.ownerKey, '?q=sam')).json() as UserMatchList).items).toEqual([
      expect.objectContaining({ userId: admin.userId, role: 'admin' }),
    ]);
  });

  it('gives site admins exact e-mail matches only, never a list', async () => {
    expect((await find(admin.key, '?q=ada')).json() as UserMatchList).toEqual({ items: [], total: 0 });
    expect(((await find(admin.key, '?q=example.test')).json() as UserMatchList).total).toBe(0);
    const exact = (await find(admin.key, '?q=Ada@Example.test')).json() as UserMatchList;
    expect(exact.items.map((u) => u.name)).toEqual(['ada']);
    const grant = await tp.app.inject({
      method: 'POST',
      url: '/api/access/grant',
      headers: headers(admin.key),
      payload: { userId: exact.items[0]?.userId, role: 'publisher' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    expect(((await find(admin.key, '?q=ada@example.test')).json() as UserMatchList).items[0]?.role).toBe(
      'publisher',
    );
  });

  it('is for admins, with a query of at least 2 characters and at most 20 results', async () => {
    expect((await find(editor.key, '?q=ada@example.test')).statusCode).toBe(403);
    for (const query of ['', '?q=a', '?q=ada&limit=21', '?q=ada&limit=0']) {
      expect((await find(tp.ownerKey, query)).statusCode, query).toBe(400);
    }
  });
});

describe('invitations', () => {
  it('lets an admin invite by e-mail; redeemed without a credential it makes the user, the membership and a key', async () => {
    const created = await invited({ email: 'New.Person@Example.test', role: 'editor', name: 'New Person' });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^invite:[0-9a-f]{12}$/),
      siteId,
      email: 'new.person@example.test',
      name: 'New Person',
      role: 'editor',
      invitedBy: admin.userId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 7 * DAY).toISOString(),
    });
    expect(created.token).toMatch(/^ti_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const listed = await tp.app.inject({
      method: 'GET',
      url: '/api/access/invitations',
      headers: headers(admin.key),
    });
    expect(listed.json()).toEqual([{ ...created, token: undefined }].map(({ token: _t, ...rest }) => rest));
    expect(listed.body).not.toContain(created.token);

    const res = await accept(created.token);
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as InvitationAccepted;
    expect(answer.member).toMatchObject({
      siteId,
      role: 'editor',
      email: 'new.person@example.test',
      name: 'New Person',
      grantedBy: admin.userId,
    });
    expect(answer.apiKey).toMatchObject({ role: 'editor', siteId, allowedSites: [siteId] });
    const key = answer.apiKey!.secret;
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/types', headers: headers(key) })).statusCode,
    ).toBe(200);
    const write = await tp.app.inject({
      method: 'POST',
      url: '/api/types',
      headers: headers(key),
      payload: {
        name: 'note',
        label: 'Note',
        nodeLabel: 'Note',
        keyField: 'title',
        fields: [{ name: 'title', type: 'string' }],
      },
    });
    expect(write.statusCode, write.body).toBe(201);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/types', headers: headers(key, otherSiteId) }))
        .statusCode,
    ).toBe(403);
    expect(await memberRole(answer.member.userId)).toBe('editor');

    // Once only; and it no longer shows as open.
    expect((await accept(created.token)).statusCode).toBe(404);
    expect(
      (
        await tp.app.inject({ method: 'GET', url: '/api/access/invitations', headers: headers(admin.key) })
      ).json(),
    ).toEqual([]);

    const actions = (await tp.app.trellis.platform.auditRecords()).map((r) => `${r.action} ${r.actor}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        `invitation.create ${admin.keyId}`,
        `user.create ${created.id}`,
        `member.grant ${admin.userId}`,
        `invitation.accept ${answer.member.userId}`,
      ]),
    );
  });

  it('gives the role to a signed-in caller, never lowering one they hold, with a key only when theirs cannot reach the site', async () => {
    // (ID tokens, which reach every site of their user: auth/id-token.test.ts.)
    // Far's key works on another site only.
    const far = await tp.addUser({ name: 'far', siteId: otherSiteId, role: 'editor' });
    const forFar = await invited({ email: 'far@example.test', role: 'publisher' });
    // Without a credential, far's e-mail is taken: they must accept signed in.
    expect((await accept(forFar.token)).statusCode).toBe(409);
    const res = await accept(forFar.token, far.key);
    expect(res.statusCode, res.body).toBe(200);
    const farAnswer = res.json() as InvitationAccepted;
    expect(farAnswer.member).toMatchObject({ userId: far.userId, role: 'publisher' });
    expect(await memberRole(far.userId)).toBe('publisher');
    expect(await memberRole(far.userId, otherSiteId)).toBe('editor');
    // Their key cannot reach this site, so a key for it comes with the answer.
    expect(farAnswer.apiKey).toMatchObject({ role: 'publisher', allowedSites: [siteId] });
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/types', headers: headers(far.key) })).statusCode,
    ).toBe(403);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/types', headers: headers(farAnswer.apiKey!.secret) }))
        .statusCode,
    ).toBe(200);

    // The editor is invited as a viewer: the higher role stays, and their key works here already.
    const lower = await invited({ email: 'eve@example.test', role: 'viewer' });
    const eve = (await accept(lower.token, editor.key)).json() as InvitationAccepted;
    expect(eve.member).toMatchObject({ userId: editor.userId, role: 'editor' });
    expect(eve.apiKey).toBeUndefined();

    // A bad credential is refused before the token is looked at.
    const another = await invited({ email: 'x@example.test', role: 'viewer' });
    expect((await accept(another.token, 'tk_000000000000_not-a-real-key')).statusCode).toBe(401);
    expect((await accept(another.token)).statusCode).toBe(200);
  });

  it('refuses tokens that are unknown, expired, revoked, or whose sender can no longer grant the role', async () => {
    const unknown = await accept(`ti_000000000000_${'A'.repeat(43)}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    expect((await accept('short')).statusCode).toBe(400);

    const expiring = await invited({
      email: 'late@example.test',
      role: 'viewer',
      expiresAt: new Date(now + DAY).toISOString(),
    });
    now += DAY;
    expect((await accept(expiring.token)).statusCode).toBe(404);

    const revoked = await invited({ email: 'gone@example.test', role: 'viewer' });
    const del = await tp.app.inject({
      method: 'DELETE',
      url: `/api/access/invitations/${revoked.id}`,
      headers: headers(admin.key),
    });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await accept(revoked.token)).statusCode).toBe(404);
    expect(
      (
        await tp.app.inject({
          method: 'DELETE',
          url: `/api/access/invitations/${revoked.id}`,
          headers: headers(admin.key),
        })
      ).statusCode,
    ).toBe(404);
    // Another site's admin cannot see or revoke it.
    const open = await invited({ email: 'open@example.test', role: 'viewer' });
    expect(
      (
        await tp.app.inject({
          method: 'DELETE',
          url: `/api/access/invitations/${open.id}`,
          headers: headers(tp.ownerKey, otherSiteId),
        })
      ).statusCode,
    ).toBe(404);

    // The sender is demoted: their invitation no longer grants an admin role.
    const forAdmin = await invited({ email: 'second-admin@example.test', role: 'admin' });
    const demoted = await tp.app.inject({
      method: 'PUT',
      url: `/api/auth/users/${admin.userId}/role`,
      headers: headers(tp.ownerKey),
      payload: { role: 'editor' },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect((await accept(forAdmin.token)).statusCode).toBe(404);
  });

  it('is for admins, who invite no one above their own role, for at most 90 days', async () => {
    expect((await invite(editor.key, { email: 'a@example.test', role: 'viewer' })).statusCode).toBe(403);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/access/invitations', headers: headers(editor.key) }))
        .statusCode,
    ).toBe(403);
    expect((await invite(admin.key, { email: 'a@example.test', role: 'owner' })).statusCode).toBe(400);
    expect((await invite(admin.key, { email: 'not-an-email', role: 'viewer' })).statusCode).toBe(400);
    for (const days of [-1, 91]) {
      const expiresAt = new Date(now + days * DAY).toISOString();
      expect(
        (await invite(admin.key, { email: 'a@example.test', role: 'viewer', expiresAt })).statusCode,
        String(days),
      ).toBe(400);
    }
    expect((await invite(admin.key, { email: 'a@example.test', role: 'admin' })).statusCode).toBe(201);
  });
});
