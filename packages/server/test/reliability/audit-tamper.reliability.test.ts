import { randomBytes } from 'node:crypto';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditAnchorNodeId } from '../../src/diagnostics/audit-anchors';
import { auditHash, auditMac, GENESIS_HASH } from '../../src/engines/shared/audit-chain';
import { PLATFORM_GRAPH } from '../../src/platform/platform-graph';
import { apiOk, createBlogSite, startServer } from './harness';

/**
 * Audit tampering, as someone with write access to the data directory but not the audit key
 * would try it, each on a copy of one server's data: one entry changed, the newest entries
 * deleted, the whole chain rewritten consistently (unkeyed, and under a key of their own),
 * the chain cut together with its anchor in the platform store, the platform graph cut. The
 * restarted server's GET /api/audit/verify must say `broken` and where, every time; the
 * untouched copy must say `ok`.
 */

interface Verdict {
  status: string;
  last_seq: number;
  reason: string | null;
  bad_seq: number | null;
  anchored_seq: number | null;
}

let base: string;
let site: { id: string; graphName: string };
let head: number;
let buildHead: number;
const copies: string[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'trellis-audit-tamper-'));
  const server = await startServer({}, { dataDir: base });
  try {
    site = await createBlogSite(server, { slug: 'tamper' });
    for (const title of ['one', 'two', 'three'])
      await apiOk(server, 'POST', '/api/content/post', { site: site.id, body: { title } });
    const build = await apiOk<{ ok: boolean }>(server, 'POST', '/api/build?env=dev', {
      site: site.id,
      expected: 200,
    });
    expect(build.ok).toBe(true);
    for (const title of ['four', 'five'])
      await apiOk(server, 'POST', '/api/content/post', { site: site.id, body: { title } });
    const verdict = await verify(server);
    expect(verdict).toMatchObject({ status: 'ok' });
    head = verdict.last_seq;
    expect(verdict.anchored_seq).toBe(head);
  } finally {
    await server.kill('SIGTERM');
  }
  const manifests = join(base, 'sites', site.graphName, 'dev', 'manifests');
  const [manifest] = readdirSync(manifests).filter((name) => name.endsWith('.json'));
  buildHead = (JSON.parse(readFileSync(join(manifests, manifest!), 'utf8')) as { auditHead: { seq: number } })
    .auditHead.seq;
  expect(buildHead).toBeGreaterThan(3);
  expect(buildHead).toBeLessThan(head);
}, 180_000);

afterAll(async () => {
  for (const dir of [...copies, base]) if (dir) await rm(dir, { recursive: true, force: true });
});

async function verify(server: { url: string; ownerKey: string }, graph = site.graphName): Promise<Verdict> {
  return apiOk<Verdict>(server, 'GET', `/api/audit/verify?graph=${graph}`, { site: site.id });
}

function onGraph<T>(dataDir: string, graph: string, fn: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'graphs', `${graph}.db`));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Rewrites a chain consistently from seq 1 with `hash`, changing every actor. */
function rechain(db: Database.Database, hash: (prevHash: string, record: Record<string, unknown>) => string) {
  const rows = db
    .prepare('SELECT seq, ts, actor, action, target, data FROM audit ORDER BY seq')
    .all() as Array<Record<string, unknown>>;
  const update = db.prepare('UPDATE audit SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?');
  let prevHash = GENESIS_HASH;
  for (const row of rows) {
    const record = {
      seq: Number(row.seq),
      ts: String(row.ts),
      actor: `forged-${String(row.actor)}`,
      action: String(row.action),
      target: String(row.target),
      ...(row.data === null ? {} : { data: JSON.parse(String(row.data)) }),
    };
    const next = hash(prevHash, record);
    update.run(record.actor, prevHash, next, record.seq);
    prevHash = next;
  }
}

/** Copies the data, tampers with the copy, starts a server on it and returns its verdict for `graph`. */
async function verdictAfter(tamper: (dataDir: string) => void, graph?: string): Promise<Verdict> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trellis-audit-tamper-copy-'));
  copies.push(dataDir);
  cpSync(base, dataDir, { recursive: true });
  tamper(dataDir);
  const server = await startServer({}, { dataDir });
  try {
    return await verify(server, graph);
  } finally {
    await server.kill('SIGTERM');
  }
}

describe('audit tampering', () => {
  it('finds the untouched chain intact', async () => {
    expect(await verdictAfter(() => {})).toMatchObject({ status: 'ok', last_seq: head, bad_seq: null });
  });

  it('names the entry changed', async () => {
    const verdict = await verdictAfter((dir) =>
      onGraph(dir, site.graphName, (db) => db.prepare("UPDATE audit SET target = 'x' WHERE seq = 4").run()),
    );
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: 4 });
  });

  it('detects the newest entries deleted, and says where the chain ends', async () => {
    const verdict = await verdictAfter((dir) =>
      onGraph(dir, site.graphName, (db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(head - 3)),
    );
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: head - 2, anchored_seq: head });
    expect(verdict.reason).toContain(
      `head anchored at seq ${head} (platform store) but chain ends at ${head - 3}`,
    );
  });

  it('detects the whole chain rewritten consistently without the key', async () => {
    const unkeyed = await verdictAfter((dir) =>
      onGraph(dir, site.graphName, (db) => rechain(db, (prev, record) => auditHash(prev, record as never))),
    );
    expect(unkeyed).toMatchObject({ status: 'broken', bad_seq: 1 });
    const otherKey = randomBytes(32);
    const ownKey = await verdictAfter((dir) =>
      onGraph(dir, site.graphName, (db) =>
        rechain(db, (prev, record) => auditMac(otherKey, prev, record as never)),
      ),
    );
    expect(ownKey).toMatchObject({ status: 'broken', bad_seq: 1 });
  });

  it("catches a cut with the build manifest's head when the platform store's anchor was removed too", async () => {
    const verdict = await verdictAfter((dir) => {
      onGraph(dir, site.graphName, (db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(buildHead - 2));
      onGraph(dir, PLATFORM_GRAPH, (db) =>
        db.prepare('DELETE FROM nodes WHERE id = ?').run(auditAnchorNodeId(site.graphName)),
      );
    });
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: buildHead - 1 });
    expect(verdict.reason).toContain(`head anchored at seq ${buildHead} (build manifest dev/manifests/`);
  });

  it("detects the platform graph's newest entries deleted, against its anchor file", async () => {
    let platformHead = 0;
    const verdict = await verdictAfter((dir) => {
      platformHead = onGraph(dir, PLATFORM_GRAPH, (db) => {
        const last = Number((db.prepare('SELECT max(seq) AS seq FROM audit').get() as { seq: number }).seq);
        db.prepare('DELETE FROM audit WHERE seq = ?').run(last);
        return last;
      });
    }, PLATFORM_GRAPH);
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: platformHead });
    expect(verdict.reason).toContain('audit-anchor.json');
  });
});
