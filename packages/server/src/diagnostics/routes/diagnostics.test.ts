import { afterEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';
import { createEmbeddedEngine } from '../../engines/embedded';
import { createNeo4jEngine } from '../../engines/neo4j';
import type { GraphEngine } from '../../engines/port';
import { STARTER_KITS } from '../../platform/starter-kits';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

async function newSite(name: string): Promise<{ id: string; graphName: string }> {
  const res = await tp.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: { authorization: `Bearer ${tp.ownerKey}` },
    payload: { name, starterKit: 'author' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const as = (key: string, siteId?: string) => ({
  authorization: `Bearer ${key}`,
  ...(siteId ? { 'x-site-id': siteId } : {}),
});

/**
 * Sites and graphs on a real embedded engine; the probe and the procedure listing from a
 * real Neo4j engine pointed at a closed port (bolt://127.0.0.1:1), so both genuinely fail.
 */
function engineWithUnreachableNeo4j(dataDir: string): GraphEngine {
  const embedded = createEmbeddedEngine({ dataDir });
  const neo4j = createNeo4jEngine({
    uri: 'bolt://127.0.0.1:1',
    user: 'neo4j',
    password: 'unused',
    edition: 'community',
    auditKey: Buffer.alloc(32, 1),
  });
  return {
    name: 'neo4j',
    init: () => embedded.init(),
    close: async () => {
      await embedded.close();
      await neo4j.close();
    },
    endpoint: () => neo4j.endpoint(),
    createGraph: (name) => embedded.createGraph(name),
    openGraph: (name) => embedded.openGraph(name),
    dropGraph: (name) => embedded.dropGraph(name),
    listGraphs: () => embedded.listGraphs(),
    procedures: () => neo4j.procedures(),
    probe: (timeoutMs) => neo4j.probe(timeoutMs),
  };
}

describe('health and metrics', () => {
  it('reports ok with the engine probe and the cache counters', async () => {
    tp = await startTestPlatform();
    const res = await tp.app.inject({ method: 'GET', url: '/api/health/detail' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'ok',
      degraded: false,
      engine: { reachable: true, error: null, httpStatus: null },
    });
    expect(body.engine.endpoint).toContain(tp.dataDir);
    expect(Object.keys(body.apiKeyCache).sort()).toEqual([
      'evictions',
      'hits',
      'invalidations',
      'misses',
      'size',
      'staleServed',
    ]);
    expect(Date.parse(body.probedAt)).not.toBeNaN();
  });

  it('reports degraded, still 200, when the engine has been closed', async () => {
    tp = await startTestPlatform();
    await tp.engine.close();
    const res = await tp.app.inject({ method: 'GET', url: '/api/health/detail' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'degraded', degraded: true, engine: { reachable: false } });
    expect(res.json().engine.error).toEqual(expect.any(String));
  });

  it('reports degraded for a Neo4j engine on a closed port, and 502 with attempts for its procedures', async () => {
    tp = await startTestPlatform({ engine: engineWithUnreachableNeo4j });
    const res = await tp.app.inject({ method: 'GET', url: '/api/health/detail' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      degraded: true,
      engine: { reachable: false, probeMs: null },
    });
    expect(res.json().engine.endpoint).toContain('127.0.0.1:1');
    expect(res.json().engine.endpoint).not.toContain('unused');
    const site = await newSite('Neo');
    const procedures = await tp.app.inject({
      method: 'GET',
      url: '/api/maintenance/engine/procedures',
      headers: as(tp.ownerKey, site.id),
    });
    expect(procedures.statusCode).toBe(502);
    expect(procedures.json()).toMatchObject({
      ok: false,
      hint: expect.any(String),
      attempts: expect.any(Array),
    });
  });
});

describe('engine procedures and audit', () => {
  it('lists the embedded engine procedures to admins only', async () => {
    tp = await startTestPlatform();
    const site = await newSite('Proc');
    const editor = await tp.addUser({ name: 'ed', siteId: site.id, role: 'editor' });
    const res = await tp.app.inject({
      method: 'GET',
      url: '/api/maintenance/engine/procedures',
      headers: as(tp.ownerKey, site.id),
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.ok).toBe(true);
    expect(body.via).toEqual(expect.any(String));
    expect(body.procedureCount).toBe(body.procedures.length);
    expect(body.procedureCount).toBeGreaterThan(0);
    const denied = await tp.app.inject({
      method: 'GET',
      url: '/api/maintenance/engine/procedures',
      headers: as(editor.key, site.id),
    });
    expect(denied.statusCode).toBe(403);
  });

  it('verifies the audit chain of the current site graph and 404s every other graph', async () => {
    tp = await startTestPlatform();
    const a = await newSite('Audit A');
    const b = await newSite('Audit B');
    const viewer = await tp.addUser({ name: 'v', siteId: a.id, role: 'viewer' });
    const verify = (graph: string | null, key = viewer.key, site = a.id) =>
      tp.app.inject({
        method: 'GET',
        url: graph === null ? '/api/audit/verify' : `/api/audit/verify?graph=${encodeURIComponent(graph)}`,
        headers: as(key, site),
      });
    const ok = await verify(a.graphName);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ graph: a.graphName, status: 'ok', reason: null });
    expect(ok.json().records).toBeGreaterThan(0);
    expect(ok.json().last_seq).toBe(ok.json().records);
    expect((await verify(b.graphName)).statusCode).toBe(404);
    expect((await verify('no-such-graph')).statusCode).toBe(404);
    expect((await verify('platform')).statusCode).toBe(404);
    expect((await verify(null)).statusCode).toBe(400);
    const platform = await verify('platform', tp.ownerKey);
    expect(platform.statusCode).toBe(200);
    expect(platform.json().status).toBe('ok');
    // A foreign site in X-Site-Id is refused before the graph is looked at.
    expect((await verify(b.graphName, viewer.key, b.id)).statusCode).toBe(403);
  });

  it('runs the checklist and records the run in the audit chain', async () => {
    tp = await startTestPlatform();
    const site = await newSite('Checklist');
    const editor = await tp.addUser({ name: 'ed', siteId: site.id, role: 'editor' });
    const url = `/api/audit/checklist?graph=${site.graphName}`;
    expect((await tp.app.inject({ method: 'POST', url, headers: as(editor.key, site.id) })).statusCode).toBe(
      403,
    );
    const res = await tp.app.inject({ method: 'POST', url, headers: as(tp.ownerKey, site.id) });
    expect(res.statusCode, res.body).toBe(200);
    const rows = Object.fromEntries(res.json().rows.map((row: { feature: string }) => [row.feature, row]));
    expect(rows.audit_chain).toMatchObject({ status: 'ok' });
    expect(rows.engine).toMatchObject({ status: 'ok', version: 'embedded' });
    expect(rows.site_record).toMatchObject({ status: 'ok' });
    const kit = STARTER_KITS.author;
    expect(rows.site_content.message).toBe(
      `${kit.types.length} content types, ${kit.templates.length} templates`,
    );
    const graph = await tp.engine.openGraph(site.graphName);
    const records = await graph!.auditRecords();
    expect(records.at(-1)).toMatchObject({ action: 'audit.checklist', target: site.graphName });
    expect(
      (
        await tp.app.inject({
          method: 'POST',
          url: '/api/audit/checklist?graph=nope',
          headers: as(tp.ownerKey, site.id),
        })
      ).statusCode,
    ).toBe(404);
  });
});
