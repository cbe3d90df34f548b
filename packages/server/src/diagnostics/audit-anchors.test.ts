import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Database from 'libsql';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { seedBlog } from '../../test/helpers/blog-site';
import type { ContentTestSite } from '../../test/helpers/content-test-site';
import { TEST_OWNER_KEY } from '../../test/helpers/test-platform';
import { loadConfig } from '../config';
import { createEmbeddedEngine } from '../engines/embedded';
import type { AuditRecord } from '../engines/port';
import { auditHash, GENESIS_HASH } from '../engines/shared/audit-chain';
import { AUDIT_KEY_FILE } from '../engines/shared/audit-key';
import { buildApp } from '../http/app';
import { PLATFORM_GRAPH } from '../platform/platform-graph';
import { AUDIT_ANCHOR_LABEL, auditAnchorNodeId, PLATFORM_ANCHOR_FILE } from './audit-anchors';

let dataDir: string;
let app: FastifyInstance;
let siteId: string;
let graphName: string;
const owner = { authorization: `Bearer ${TEST_OWNER_KEY}` };

async function start(): Promise<void> {
  const config = loadConfig({
    CMS_DATA_DIR: dataDir,
    CMS_OWNER_KEY: TEST_OWNER_KEY,
    LOG_LEVEL: 'silent',
    CMS_SCHEDULER: '0',
    RATE_LIMIT_MAX: '100000',
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  app = await buildApp({ config, engine: createEmbeddedEngine({ dataDir }), logger: false });
  await app.ready();
}

async function stop(): Promise<void> {
  await app.close();
}

/** A {@link ContentTestSite} over the running app, enough for seedBlog. */
function site(): ContentTestSite {
  const headers = { ...owner, 'x-site-id': siteId };
  const request: ContentTestSite['request'] = (options) =>
    app.inject({
      ...options,
      headers: { ...headers, ...(options.headers as Record<string, string>) },
    }) as never;
  return {
    platform: undefined as never,
    siteId,
    graph: undefined as never,
    headers,
    request,
    async createType(definition) {
      const response = await request({ method: 'POST', url: '/api/types', payload: definition });
      expect(response.statusCode, response.body).toBe(201);
      return response.json();
    },
    close: async () => {},
  };
}

async function writeItem(title: string): Promise<void> {
  const response = await site().request({ method: 'POST', url: '/api/content/post', payload: { title } });
  expect(response.statusCode, response.body).toBe(201);
}

async function verify(graph = graphName) {
  await app.trellis.auditAnchors.settle();
  const response = await app.inject({
    method: 'GET',
    url: `/api/audit/verify?graph=${graph}`,
    headers: { ...owner, 'x-site-id': siteId },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as {
    status: string;
    records: number;
    last_seq: number;
    reason: string | null;
    bad_seq: number | null;
    anchored_seq: number | null;
    legacy_through: number;
  };
}

/** Runs `fn` on a second connection to a graph's file, as someone with disk access could. */
function onFile<T>(graph: string, fn: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'graphs', `${graph}.db`));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function storedRecords(graph: string): AuditRecord[] {
  return onFile(graph, (db) =>
    (
      db
        .prepare('SELECT seq, ts, actor, action, target, data, prev_hash, hash FROM audit ORDER BY seq')
        .all() as Array<Record<string, unknown>>
    ).map((row) => ({
      seq: Number(row.seq),
      ts: String(row.ts),
      actor: String(row.actor),
      action: String(row.action),
      target: String(row.target),
      ...(row.data === null ? {} : { data: JSON.parse(String(row.data)) }),
      prevHash: String(row.prev_hash),
      hash: String(row.hash),
    })),
  );
}

/** Rewrites a graph's whole chain with the unkeyed sha256 (what anyone can compute), consistently. */
function rechainUnkeyed(graph: string, change: (record: AuditRecord) => AuditRecord = (r) => r): void {
  const records = storedRecords(graph);
  onFile(graph, (db) => {
    const update = db.prepare('UPDATE audit SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?');
    let prevHash = GENESIS_HASH;
    for (const original of records) {
      const record = { ...change(original), prevHash };
      record.hash = auditHash(prevHash, record);
      update.run(record.actor, record.prevHash, record.hash, record.seq);
      prevHash = record.hash;
    }
  });
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'trellis-anchors-'));
  await start();
  const created = await app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: owner,
    payload: { name: 'Anchored', slug: 'anchored', starterKit: 'none' },
  });
  expect(created.statusCode, created.body).toBe(201);
  ({ id: siteId, graphName } = created.json() as { id: string; graphName: string });
  await seedBlog(site());
});

afterEach(async () => {
  await stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the audit chain, keyed and anchored outside the graph', () => {
  it('verifies a site chain against its head in the platform store, and the platform chain against its file', async () => {
    const verdict = await verify();
    expect(verdict).toMatchObject({ status: 'ok', bad_seq: null, legacy_through: 0 });
    expect(verdict.records).toBeGreaterThan(5);
    expect(verdict.anchored_seq).toBe(verdict.last_seq);
    const anchor = await app.trellis.platform.getNode(auditAnchorNodeId(graphName));
    expect(anchor?.labels).toEqual([AUDIT_ANCHOR_LABEL]);
    expect(anchor?.props).toMatchObject({ graph: graphName, seq: verdict.last_seq, legacyThrough: 0 });

    const platform = await verify(PLATFORM_GRAPH);
    expect(platform).toMatchObject({ status: 'ok', bad_seq: null });
    expect(platform.anchored_seq).toBe(platform.last_seq);
    const file = JSON.parse(await readFile(join(dataDir, PLATFORM_ANCHOR_FILE), 'utf8'));
    expect(file).toMatchObject({ graph: PLATFORM_GRAPH, seq: platform.last_seq });
    // The key and the platform anchor are private to the server's user.
    expect(statSync(join(dataDir, AUDIT_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, PLATFORM_ANCHOR_FILE)).mode & 0o777).toBe(0o600);
  });

  it('detects its newest entries deleted, saying where the chain ends, and does not anchor over the cut', async () => {
    const before = await verify();
    onFile(graphName, (db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(before.last_seq - 2));
    const cut = await verify();
    expect(cut).toMatchObject({
      status: 'broken',
      bad_seq: before.last_seq - 1,
      anchored_seq: before.last_seq,
    });
    expect(cut.reason).toContain(
      `head anchored at seq ${before.last_seq} (platform store) but chain ends at ${before.last_seq - 2}`,
    );
    // Writing on makes the chain long again, but it differs at the anchored seq.
    for (const title of ['Third', 'Fourth', 'Fifth']) await writeItem(title);
    const after = await verify();
    expect(after).toMatchObject({
      status: 'broken',
      bad_seq: before.last_seq,
      anchored_seq: before.last_seq,
    });
    expect(after.last_seq).toBeGreaterThan(before.last_seq);
  });

  it('detects the whole chain rewritten consistently without the key, at seq 1', async () => {
    rechainUnkeyed(graphName, (record) => ({ ...record, actor: 'nobody' }));
    expect(await verify()).toMatchObject({ status: 'broken', bad_seq: 1 });
  });

  it('detects one entry tampered with, at its seq', async () => {
    onFile(graphName, (db) => db.prepare(`UPDATE audit SET target = 'elsewhere' WHERE seq = 3`).run());
    const verdict = await verify();
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: 3 });
    expect(verdict.reason).toMatch(/^record seq 3\b/);
  });

  it("detects the platform graph's newest entries deleted, against its anchor file", async () => {
    const before = await verify(PLATFORM_GRAPH);
    onFile(PLATFORM_GRAPH, (db) => db.prepare('DELETE FROM audit WHERE seq = ?').run(before.last_seq));
    const verdict = await verify(PLATFORM_GRAPH);
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: before.last_seq });
    expect(verdict.reason).toContain(`file ${PLATFORM_ANCHOR_FILE}`);
  });

  it('reports an anchor that fails its MAC', async () => {
    // An anchor write still in flight from the writes before would replace the forged file.
    await app.trellis.auditAnchors.settle();
    const path = join(dataDir, PLATFORM_ANCHOR_FILE);
    const file = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...file, seq: file.seq - 1 }));
    const verdict = await verify(PLATFORM_GRAPH);
    expect(verdict.status).toBe('broken');
    expect(verdict.reason).toContain('fails its MAC');
  });

  it("keeps a build's head in its manifest, which still catches a cut when the platform store's anchor is gone", async () => {
    const build = await site().request({ method: 'POST', url: '/api/build?env=dev' });
    expect(build.statusCode, build.body).toBe(200);
    const { buildId } = build.json() as { buildId: string };
    const manifest = JSON.parse(
      await readFile(join(dataDir, 'sites', graphName, 'dev', 'manifests', `${buildId}.json`), 'utf8'),
    );
    expect(manifest.auditHead).toMatchObject({ graph: graphName });
    const head = manifest.auditHead.seq as number;
    expect(head).toBeGreaterThan(3);
    // Someone cuts the chain and also removes the anchor from the platform store.
    await stop();
    onFile(graphName, (db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(head - 3));
    const engine = createEmbeddedEngine({ dataDir });
    await engine.init();
    await (await engine.openGraph(PLATFORM_GRAPH))?.deleteNode(auditAnchorNodeId(graphName));
    await engine.close();
    await start();
    const verdict = await verify();
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: head - 2 });
    expect(verdict.reason).toContain(
      `head anchored at seq ${head} (build manifest dev/manifests/${buildId}.json)`,
    );
  });

  it('accepts a chain written before keying up to the seq it was first anchored at, and keys what follows', async () => {
    // The state an older server left: an unkeyed chain, and no anchor.
    await stop();
    rechainUnkeyed(graphName);
    const engine = createEmbeddedEngine({ dataDir });
    await engine.init();
    await (await engine.openGraph(PLATFORM_GRAPH))?.deleteNode(auditAnchorNodeId(graphName));
    await engine.close();
    const legacy = storedRecords(graphName).length;
    await start();
    expect(await verify()).toMatchObject({ status: 'ok', legacy_through: legacy, last_seq: legacy });
    await writeItem('After the upgrade');
    const after = await verify();
    expect(after).toMatchObject({ status: 'ok', legacy_through: legacy });
    expect(after.last_seq).toBeGreaterThan(legacy);
    expect(after.anchored_seq).toBe(after.last_seq);
    // An unkeyed record after the boundary is refused: rewriting the whole chain unkeyed now shows.
    rechainUnkeyed(graphName);
    expect(await verify()).toMatchObject({ status: 'broken', bad_seq: legacy + 1 });
  });
});

describe('anchoring held during a bulk write', () => {
  /** The anchored seq of the site graph, as stored in the platform graph. */
  const anchoredSeq = async () =>
    (await app.trellis.platform.getNode(auditAnchorNodeId(graphName)))?.props.seq as number;
  const headSeq = async () => {
    const graph = await app.trellis.engine.openGraph(graphName);
    return (await graph!.findAudit({ order: 'desc', limit: 1, total: false })).records[0]!.seq;
  };

  it('raises the anchor once, at the release of the last holder, for the writes made meanwhile', async () => {
    const anchors = app.trellis.auditAnchors;
    await anchors.settle();
    const start = await anchoredSeq();
    expect(start).toBe(await headSeq());
    const first = anchors.hold(graphName);
    const second = anchors.hold(graphName);
    await writeItem('Held one');
    await writeItem('Held two');
    await anchors.settle();
    expect(await headSeq()).toBe(start + 2);
    expect(await anchoredSeq()).toBe(start);
    first();
    first(); // a second release of the same holder changes nothing
    await anchors.settle();
    expect(await anchoredSeq()).toBe(start);
    second();
    await anchors.settle();
    expect(await anchoredSeq()).toBe(start + 2);
    // Not held any more: the next write is anchored on its own.
    await writeItem('After');
    await anchors.settle();
    expect(await anchoredSeq()).toBe(start + 3);
    expect(await verify()).toMatchObject({ status: 'ok', anchored_seq: start + 3 });
  });

  it('anchors a bulk import of several batches once (records, edges, removal), to the head after its last batch', async () => {
    const anchors = app.trellis.auditAnchors;
    const request = site().request;
    await site().createType({
      name: 'note',
      label: 'Note',
      nodeLabel: 'Note',
      keyField: 'slug',
      fields: [
        { name: 'slug', type: 'string', required: true, unique: true },
        { name: 'title', type: 'string', required: true },
      ],
      relationships: [{ name: 'seeAlso', edgeLabel: 'SEE_ALSO', target: 'note', kind: 'many-to-many' }],
    });
    await anchors.settle();
    // Each anchoring run reads the graph's head once (advanceOnce): counted on the real method.
    const runs = vi.spyOn(anchors as unknown as { advanceOnce: () => Promise<void> }, 'advanceOnce');
    const notes = Array.from({ length: 6 }, (_, i) => ({ slug: `n${i}`, title: `Note ${i}` }));
    const edges = notes.map((_, i) => ({ from: `note:n${i}`, edge: 'SEE_ALSO', to: `note:n${(i + 1) % 6}` }));
    const calls = [
      { url: '/api/import/json', payload: { typeName: 'note', records: notes, batchSize: 2 } },
      { url: '/api/import/edges', payload: { edges, batchSize: 2 } },
      { url: '/api/import/edges/remove', payload: { edges, batchSize: 2 } },
    ];
    for (const call of calls) {
      const before = await headSeq();
      runs.mockClear();
      const response = await request({ method: 'POST', ...call });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ failed: 0 });
      await anchors.settle();
      // Three batches, three transactions with an audit entry each, one anchoring.
      expect(await headSeq()).toBe(before + 3);
      expect(runs).toHaveBeenCalledTimes(1);
      expect(await anchoredSeq()).toBe(before + 3);
    }
    runs.mockRestore();
    expect(await verify()).toMatchObject({ status: 'ok' });
  });
});
