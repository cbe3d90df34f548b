import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';
import { createEmbeddedEngine } from '../../engines/embedded';
import type { Graph, GraphEngine } from '../../engines/port';
import { fixedClock, systemClock } from '../../shared/clock';
import { STARTER_KITS } from '../starter-kits';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

const auth = (key: string, siteId?: string) => ({
  authorization: `Bearer ${key}`,
  ...(siteId ? { 'x-site-id': siteId } : {}),
});

async function createSite(key: string, payload: Record<string, unknown>) {
  return tp.app.inject({ method: 'POST', url: '/api/sites', headers: auth(key), payload });
}

describe('sites', () => {
  beforeEach(async () => {
    tp = await startTestPlatform();
  });

  it('creates a site with a fresh uuid graph and makes the creator its admin', async () => {
    const user = await tp.addUser({ name: 'creator', platformRole: 'admin' });
    const res = await createSite(tp.ownerKey, { name: 'My Blog', starterKit: 'none' });
    expect(res.statusCode, res.body).toBe(201);
    const site = res.json();
    expect(site).toMatchObject({ id: 'site:my-blog', slug: 'my-blog', name: 'My Blog', publicUrl: null });
    expect(site.graphName).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await tp.engine.listGraphs()).toContain(site.graphName);
    const mine = await tp.app.inject({
      method: 'GET',
      url: '/api/access/my-sites',
      headers: auth(tp.ownerKey),
    });
    expect(mine.json()).toContainEqual({
      siteId: 'site:my-blog',
      siteName: 'My Blog',
      graphName: site.graphName,
      role: 'owner',
    });
    const members = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: auth(tp.ownerKey, site.id),
    });
    expect(members.json()).toContainEqual(expect.objectContaining({ userId: 'user:owner', role: 'admin' }));
    expect(user.userId).toMatch(/^user:/);
  });

  it.each(['author', 'designer', 'developer', 'none'] as const)(
    'seeds the %s starter kit into the site graph',
    async (kit) => {
      const res = await createSite(tp.ownerKey, { name: `Kit ${kit}`, starterKit: kit });
      expect(res.statusCode, res.body).toBe(201);
      const site = res.json();
      const headers = { authorization: `Bearer ${tp.ownerKey}`, 'x-site-id': site.id };
      // Seeded through the same repositories as POST /types and POST /templates, so their
      // own routes list them.
      const types = await tp.app.inject({ method: 'GET', url: '/api/types', headers });
      expect(types.statusCode, types.body).toBe(200);
      expect(
        types
          .json()
          .map((t: { name: string }) => t.name)
          .sort(),
      ).toEqual(STARTER_KITS[kit].types.map((t) => t.name).sort());
      const templates = await tp.app.inject({ method: 'GET', url: '/api/templates', headers });
      expect(templates.statusCode, templates.body).toBe(200);
      expect(
        templates
          .json()
          .map((t: { name: string }) => t.name)
          .sort(),
      ).toEqual(STARTER_KITS[kit].templates.map((t) => t.name).sort());
      if (kit !== 'none') expect(types.json().length).toBeGreaterThanOrEqual(2);
      const graph = (await tp.engine.openGraph(site.graphName)) as Graph;
      expect((await graph.verifyAudit()).status).toBe('ok');
    },
  );

  it('derives unique slugs from names and refuses a taken explicit slug', async () => {
    expect((await createSite(tp.ownerKey, { name: 'Café Ünïcode!' })).json().slug).toBe('cafe-unicode');
    expect((await createSite(tp.ownerKey, { name: 'Café Ünïcode' })).json().slug).toBe('cafe-unicode-2');
    const taken = await createSite(tp.ownerKey, { name: 'Other', slug: 'cafe-unicode' });
    expect(taken.statusCode).toBe(409);
    expect((await createSite(tp.ownerKey, { name: 'Bad', slug: 'Not A Slug' })).statusCode).toBe(400);
    expect((await createSite(tp.ownerKey, {})).statusCode).toBe(400);
  });

  it('ignores fields a caller may not set (mass assignment)', async () => {
    const res = await createSite(tp.ownerKey, {
      name: 'Mass',
      id: 'site:evil',
      graphName: 'platform',
      createdBy: 'user:evil',
      role: 'owner',
      deletedAt: '2020-01-01T00:00:00Z',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().id).toBe('site:mass');
    expect(res.json().graphName).not.toBe('platform');
    const stored = await tp.app.trellis.platform.getNode('site:mass');
    expect(stored?.props.createdBy).toBe('user:owner');
    expect(stored?.props.deletedAt).toBeNull();
  });

  it('lists every site to the owner and only their own to a member', async () => {
    const a = (await createSite(tp.ownerKey, { name: 'Alpha' })).json();
    await createSite(tp.ownerKey, { name: 'Beta' });
    const editor = await tp.addUser({ name: 'ed', siteId: a.id, role: 'editor' });
    const all = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: auth(tp.ownerKey) });
    expect(all.json().map((s: { id: string }) => s.id)).toEqual(['site:alpha', 'site:beta']);
    const own = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: auth(editor.key) });
    expect(own.json().map((s: { id: string }) => s.id)).toEqual(['site:alpha']);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites/site:beta', headers: auth(editor.key) }))
        .statusCode,
    ).toBe(403);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites/site:alpha', headers: auth(editor.key) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites/site:nope', headers: auth(tp.ownerKey) }))
        .statusCode,
    ).toBe(404);
  });

  it('updates only the fields sent; graphName and slug never change', async () => {
    const site = (
      await createSite(tp.ownerKey, { name: 'Upd', description: 'first', mantra: 'keep' })
    ).json();
    const editor = await tp.addUser({ name: 'ed', siteId: site.id, role: 'editor' });
    const admin = await tp.addUser({ name: 'ad', siteId: site.id, role: 'admin' });
    const put = (key: string, payload: Record<string, unknown>) =>
      tp.app.inject({ method: 'PUT', url: `/api/sites/${site.id}`, headers: auth(key), payload });
    expect((await put(editor.key, { name: 'Nope' })).statusCode).toBe(403);
    const res = await put(admin.key, {
      description: 'second',
      graphName: 'hijack',
      theme: { accent: '#000' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Upd',
      description: 'second',
      mantra: 'keep',
      graphName: site.graphName,
    });
    expect(res.json().theme.accent).toBe('#000');
    expect(res.json().theme.primary).toBe(site.theme.primary);
    expect((await put(admin.key, { slug: 'renamed' })).statusCode).toBe(400);
    expect((await put(admin.key, { slug: 'upd', name: 'Same slug' })).statusCode).toBe(200);
  });

  it('lets only the owner soft-delete; the site then answers 404 and its graph is kept', async () => {
    const site = (await createSite(tp.ownerKey, { name: 'Doomed' })).json();
    const admin = await tp.addUser({ name: 'ad', siteId: site.id, role: 'admin' });
    const del = (key: string) =>
      tp.app.inject({ method: 'DELETE', url: `/api/sites/${site.id}`, headers: auth(key) });
    expect((await del(admin.key)).statusCode).toBe(403);
    const res = await del(tp.ownerKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, id: site.id });
    expect(
      (await tp.app.inject({ method: 'GET', url: `/api/sites/${site.id}`, headers: auth(tp.ownerKey) }))
        .statusCode,
    ).toBe(404);
    expect((await del(tp.ownerKey)).statusCode).toBe(404);
    const list = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: auth(tp.ownerKey) });
    expect(list.json()).toEqual([]);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/auth/users', headers: auth(admin.key, site.id) }))
        .statusCode,
    ).toBe(403);
    expect(await tp.engine.listGraphs()).toContain(site.graphName);
    const stored = await tp.app.trellis.platform.getNode(site.id);
    expect(Date.parse(String(stored?.props.purgeAfter))).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it('refuses site creation to a site-restricted API key', async () => {
    const site = (await createSite(tp.ownerKey, { name: 'Home' })).json();
    const admin = await tp.addUser({ name: 'ad', siteId: site.id, role: 'admin' });
    expect((await createSite(admin.key, { name: 'Elsewhere' })).statusCode).toBe(403);
  });
});

describe('partial site creation', () => {
  it('answers 500 partial_site_creation, drops the new graph and writes no site record', async () => {
    // A real embedded engine whose new graphs refuse transactions, so seeding fails midway.
    let created = '';
    const makeEngine = (dataDir: string): GraphEngine => {
      const real = createEmbeddedEngine({ dataDir });
      return {
        ...real,
        name: real.name,
        async createGraph(name: string) {
          const graph = await real.createGraph(name);
          if (name === 'platform') return graph;
          created = name;
          return new Proxy(graph, {
            get(target, prop, receiver) {
              if (prop === 'transaction') {
                return async () => {
                  throw new Error('disk full');
                };
              }
              const value = Reflect.get(target, prop, receiver);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
        },
      };
    };
    tp = await startTestPlatform({ engine: makeEngine });
    const res = await createSite(tp.ownerKey, { name: 'Half', starterKit: 'author' });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('partial_site_creation');
    expect(created).not.toBe('');
    expect(await tp.engine.listGraphs()).not.toContain(created);
    expect(await tp.app.trellis.platform.getNode('site:half')).toBeNull();
  });
});

describe('retention', () => {
  it('purges a deleted site once its retention period ends, freeing its slug', async () => {
    tp = await startTestPlatform();
    const { purgeExpiredSites } = await import('../purge-deleted-sites');
    const site = (await createSite(tp.ownerKey, { name: 'Gone' })).json();
    const kept = (await createSite(tp.ownerKey, { name: 'Kept' })).json();
    const del = await tp.app.inject({
      method: 'DELETE',
      url: `/api/sites/${site.id}`,
      headers: auth(tp.ownerKey),
    });
    expect(del.statusCode).toBe(200);
    const platform = tp.app.trellis.platform;
    expect(await purgeExpiredSites({ engine: tp.engine, platform, clock: systemClock })).toEqual([]);
    expect(await tp.engine.listGraphs()).toContain(site.graphName);
    const later = new Date(Date.now() + 31 * 86_400_000);
    expect(await purgeExpiredSites({ engine: tp.engine, platform, clock: fixedClock(later) })).toEqual([
      site.id,
    ]);
    expect(await tp.engine.listGraphs()).not.toContain(site.graphName);
    expect(await tp.engine.listGraphs()).toContain(kept.graphName);
    expect(await platform.getNode(site.id)).toBeNull();
    expect((await platform.auditRecords()).at(-1)).toMatchObject({ action: 'site.purge', target: site.id });
    expect((await createSite(tp.ownerKey, { name: 'Gone' })).json().id).toBe('site:gone');
  });
});

describe('concurrent creation', () => {
  it('gives concurrent sites of one name distinct slugs', async () => {
    tp = await startTestPlatform();
    const results = await Promise.all(
      [1, 2, 3].map(() => createSite(tp.ownerKey, { name: 'Race', starterKit: 'none' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(results.map((r) => r.json().id).sort()).toEqual(['site:race', 'site:race-2', 'site:race-3']);
  });
});
