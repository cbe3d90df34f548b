import type { AuditEntry, AuditLog } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import type { TestUser } from '../../../test/helpers/test-platform';

let site: ContentTestSite;
let admin: TestUser;
let editor: TestUser;
let viewer: TestUser;

beforeEach(async () => {
  site = await createContentTestSite({ slug: 'audited' });
  admin = await site.platform.addUser({ name: 'Ada Admin', siteId: site.siteId, role: 'admin' });
  editor = await site.platform.addUser({ name: 'Ed Editor', siteId: site.siteId, role: 'editor' });
  viewer = await site.platform.addUser({ name: 'Vi Viewer', siteId: site.siteId, role: 'viewer' });
  await site.createType({
    name: 'note',
    label: 'Note',
    nodeLabel: 'Note',
    keyField: 'title',
    fields: [{ name: 'title', type: 'string', required: true }],
  });
  const asEditor = { authorization: `Bearer ${editor.key}` };
  for (const title of ['a', 'b', 'ab']) {
    const res = await site.request({
      method: 'POST',
      url: '/api/content/note',
      payload: { title },
      headers: asEditor,
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  const patched = await site.request({
    method: 'PATCH',
    url: '/api/content/note/note:a',
    payload: { title: 'a' },
    headers: asEditor,
  });
  expect(patched.statusCode, patched.body).toBe(200);
});
afterEach(async () => {
  await site.close();
});

async function audit(query: string, key = admin.key, extra: Record<string, string> = {}) {
  return site.platform.app.inject({
    method: 'GET',
    url: `/api/audit${query}`,
    headers: { authorization: `Bearer ${key}`, 'x-site-id': site.siteId, ...extra },
  });
}

async function auditLog(query: string): Promise<AuditLog> {
  const res = await audit(query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as AuditLog;
}

const shape = (entries: AuditEntry[]) => entries.map((e) => `${e.action} ${e.target}`);

describe('GET /api/audit', () => {
  it("pages the site's audit chain newest first: who did what to which resource, when", async () => {
    const log = await auditLog('');
    expect(log).toMatchObject({ limit: 50, offset: 0 });
    expect(log.total).toBe(log.items.length);
    expect(shape(log.items).slice(0, 4)).toEqual([
      'content.update note:a',
      'content.create note:ab',
      'content.create note:b',
      'content.create note:a',
    ]);
    expect(log.items[4]?.action).toBe('type.create');
    const update = log.items[0]!;
    expect(update).toMatchObject({ actor: editor.keyId, actorName: 'Ed Editor key (Ed Editor)' });
    expect(update.data).toMatchObject({ version: 2 });
    expect(Number.isNaN(Date.parse(update.ts))).toBe(false);
    expect(update.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(log.items[1]!.hash).toBe(update.prevHash);
    expect(log.items.map((e) => e.seq)).toEqual([...log.items.map((e) => e.seq)].sort((a, b) => b - a));

    const page = await auditLog('?limit=2&offset=1');
    expect(page.items).toEqual(log.items.slice(1, 3));
    expect(page).toMatchObject({ total: log.total, limit: 2, offset: 1 });
    const oldest = await auditLog('?order=asc&limit=1');
    expect(oldest.items[0]!.seq).toBe(1);
    expect((await auditLog(`?offset=${log.total}`)).items).toEqual([]);
  });

  it('filters by actor (a user id takes in their API keys), action, target and time', async () => {
    const byUser = await auditLog(`?actor=${encodeURIComponent(editor.userId)}`);
    expect(shape(byUser.items)).toEqual([
      'content.update note:a',
      'content.create note:ab',
      'content.create note:b',
      'content.create note:a',
    ]);
    expect(byUser.total).toBe(4);
    expect((await auditLog(`?actor=${encodeURIComponent(editor.keyId)}`)).total).toBe(4);
    expect((await auditLog(`?actor=${encodeURIComponent(admin.userId)}`)).total).toBe(0);
    expect((await auditLog('?actor=key:*')).total).toBeGreaterThanOrEqual(5);

    expect(shape((await auditLog('?action=content.create')).items)).toEqual([
      'content.create note:ab',
      'content.create note:b',
      'content.create note:a',
    ]);
    expect((await auditLog('?action=content.*')).total).toBe(4);
    expect(shape((await auditLog('?target=note:a')).items)).toEqual([
      'content.update note:a',
      'content.create note:a',
    ]);
    expect((await auditLog('?target=note:a*')).total).toBe(3);
    const combined = await auditLog('?target=note:*&action=content.create&limit=1');
    expect(shape(combined.items)).toEqual(['content.create note:ab']);
    expect(combined.total).toBe(3);

    const all = (await auditLog('?order=asc')).items;
    const from = all.find((e) => e.target === 'note:b')!.ts;
    const to = all.find((e) => e.action === 'content.update')!.ts;
    const expected = all.filter((e) => e.ts >= from && e.ts < to).reverse();
    const ranged = await auditLog(`?since=${encodeURIComponent(from)}&until=${encodeURIComponent(to)}`);
    expect(ranged.items).toEqual(expected);
    expect(ranged.items.some((e) => e.target === 'note:b')).toBe(true);
    expect(ranged.items.some((e) => e.action === 'content.update')).toBe(false);
    // Offsets are read as the instant they name.
    const shifted = new Date(Date.parse(from)).toISOString().replace('Z', '+00:00');
    expect((await auditLog(`?since=${encodeURIComponent(shifted)}`)).items.at(-1)).toEqual(
      (await auditLog(`?since=${encodeURIComponent(from)}`)).items.at(-1),
    );
    expect((await auditLog('?since=2999-01-01T00:00:00Z')).total).toBe(0);
  });

  it('is for site admins; the platform chain only for the platform owner', async () => {
    for (const key of [editor.key, viewer.key]) expect((await audit('', key)).statusCode).toBe(403);
    const noSite = await site.platform.app.inject({
      method: 'GET',
      url: '/api/audit',
      headers: { authorization: 'Bearer tk_000000000000_not-a-real-key' },
    });
    expect(noSite.statusCode).toBe(401);

    const platformGraph = site.platform.app.trellis.platformGraphName;
    expect((await audit(`?graph=${platformGraph}`)).statusCode).toBe(404);
    const owner = await audit(`?graph=${platformGraph}&action=member.*`, site.platform.ownerKey);
    expect(owner.statusCode, owner.body).toBe(200);
    const grants = (owner.json() as AuditLog).items.filter((e) => e.data?.siteId === site.siteId);
    expect(grants.map((e) => e.target)).toEqual(
      expect.arrayContaining([admin.userId, editor.userId, viewer.userId, 'user:owner']),
    );
    const other = await site.platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: `Bearer ${site.platform.ownerKey}` },
      payload: { name: 'Other', starterKit: 'none' },
    });
    expect((await audit(`?graph=${other.json().graphName}`)).statusCode).toBe(404);
  });

  it('refuses bad parameters with 400', async () => {
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?offset=-1',
      '?since=yesterday',
      '?order=up',
      '?actor=',
    ]) {
      expect((await audit(query)).statusCode, query).toBe(400);
    }
  });
});
