/**
 * The edges table's own floor (issue 20, item 4: `POST /api/import/edges` ≥ 100,000 edges/s):
 * E new edges between N nodes of import-sizes.ts's ids (`article:article-<i>`, type RELATED,
 * props `{}`, the bench's ends), inserted as raw SQL, one plain INSERT per edge, one transaction
 * per 2,000 (the bench's batchSize), with the embedded engine's durability and pragmas, into
 * a graph that already holds the N nodes and E earlier edges (the second import of
 * profile-import.ts), in layouts:
 * - `text`: schema 5's edges (keyed by (from_id, type, to_id) text, `edges_to` index; schema 6,
 *   the engine's now, keys them by rid as `rid` here does);
 * - `text+ends`: the same plus the two endpoint lookups the engine makes per edge (nodes.id);
 * - `rid`: the same edges keyed by the nodes' integer rids ((from_rid, type, to_rid), and the
 *   reverse index), the ends looked up to rids in the statement.
 * - `text-multi`, `rid-multi`: the same rows as multi-row INSERTs of 250 rows (as the engine writes).
 * Prints wall and process CPU per layout and round. Not part of `pnpm bench`.
 *
 * Run: N=20000 E=40000 ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/edge-floor.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { SCHEMA_SQL } from '../src/engines/embedded/schema';

const N = Number(process.env.N ?? 20000);
const E = Number(process.env.E ?? 40000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCH = 2000;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

type Layout = 'text' | 'text+ends' | 'rid' | 'text-multi' | 'rid-multi';
const CHUNK = 250;

/** The bench's edges (import-sizes.ts; `round` 1 is profile-import.ts's second set). */
function edgeList(round: number): Array<[string, string]> {
  return Array.from({ length: E }, (_, i) => [
    `article:article-${i % N}`,
    `article:article-${round === 0 ? (i * 7 + 1 + Math.floor(i / N)) % N : (i * 11 + 3 + Math.floor(i / N)) % N}`,
  ]);
}

const RID_SCHEMA = `CREATE TABLE redges (
  from_rid INTEGER NOT NULL, type TEXT NOT NULL, to_rid INTEGER NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_rid, type, to_rid)) WITHOUT ROWID;
CREATE INDEX redges_to ON redges (to_rid, type, from_rid);`;

function run(layout: Layout): { ms: number; cpuMs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-edge-floor-'));
  const db = new Database(join(dir, 'graph.db'), { timeout: 5000 });
  try {
    if (process.env.PAGE) db.exec(`PRAGMA page_size = ${Number(process.env.PAGE)}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA wal_autocheckpoint = 10000');
    db.exec('PRAGMA cache_size = -65536');
    db.exec('PRAGMA mmap_size = 268435456');
    db.exec(SCHEMA_SQL);
    // Schema 5's text-keyed edges table in place of schema 6's.
    db.exec(`DROP TABLE edges;
CREATE TABLE edges (from_id TEXT NOT NULL, type TEXT NOT NULL, to_id TEXT NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_id, type, to_id)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_id, type, from_id);`);
    db.exec(RID_SCHEMA);
    const node = db.prepare(
      `INSERT INTO nodes (id, label, labels, props) VALUES (?, 'Article', '["Article","Content"]', '{}')`,
    );
    db.exec('BEGIN');
    for (let i = 0; i < N; i++) node.run([`article:article-${i}`]);
    db.exec('COMMIT');
    const textInsert = db.prepare(
      `INSERT INTO edges (from_id, type, to_id, props) VALUES (?, 'RELATED', ?, '{}')`,
    );
    const ends = db.prepare('SELECT count(*) FROM nodes WHERE id IN (?, ?)').raw();
    const ridInsert = db.prepare(
      `INSERT INTO redges (from_rid, type, to_rid, props) VALUES ((SELECT rid FROM nodes WHERE id = ?), 'RELATED', (SELECT rid FROM nodes WHERE id = ?), '{}')`,
    );
    const multi = (sql: string) =>
      db.prepare(
        `${sql} VALUES ${new Array(CHUNK).fill(sql.includes('redges') ? "((SELECT rid FROM nodes WHERE id = ?), 'RELATED', (SELECT rid FROM nodes WHERE id = ?), '{}')" : "(?, 'RELATED', ?, '{}')").join(', ')}`,
      );
    const textMulti = multi('INSERT INTO edges (from_id, type, to_id, props)');
    const ridMulti = multi('INSERT INTO redges (from_rid, type, to_rid, props)');
    const load = (edges: Array<[string, string]>) => {
      for (let at = 0; at < edges.length; at += BATCH) {
        db.exec('BEGIN IMMEDIATE');
        if (layout === 'text-multi' || layout === 'rid-multi') {
          for (let k = at; k < Math.min(at + BATCH, edges.length); k += CHUNK)
            (layout === 'rid-multi' ? ridMulti : textMulti).run(edges.slice(k, k + CHUNK).flat());
          db.exec('COMMIT');
          continue;
        }
        for (let k = at; k < Math.min(at + BATCH, edges.length); k++) {
          const [from, to] = edges[k]!;
          if (layout === 'rid') ridInsert.run([from, to]);
          else {
            if (layout === 'text+ends') ends.get([from, to]);
            textInsert.run([from, to]);
          }
        }
        db.exec('COMMIT');
      }
    };
    load(edgeList(0));
    const second = edgeList(1);
    const cpu = process.cpuUsage();
    const started = performance.now();
    load(second);
    return { ms: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let round = 0; round < ROUNDS; round++) {
  for (const layout of (process.env.LAYOUTS?.split(',') ?? [
    'text',
    'text+ends',
    'rid',
    'text-multi',
    'rid-multi',
  ]) as Layout[]) {
    const r = run(layout);
    console.log(
      `${layout.padEnd(10)} ${E} edges: ${r.ms.toFixed(0)} ms wall (${Math.round((E / r.ms) * 1000).toLocaleString('en-US')}/s), ${r.cpuMs.toFixed(0)} ms cpu (${Math.round((E / r.cpuMs) * 1000).toLocaleString('en-US')}/CPU-s); load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
}
