/**
 * What an edge costs SQLite, by table shape (issue 20, item 4, the edges part; docs/benchmarks.md
 * "Edges, session 17"): EDGES edges between NODES nodes (the bench's ids and edge pattern,
 * import-sizes.ts), written as raw SQL in transactions of BATCH with the engine's pragmas into a
 * fresh database that already holds the nodes (`nodes` of schema.ts, untimed). Per shape, the
 * plain floor (one prepared INSERT per row, the keys given) and the import's statement (multi-row
 * `INSERT OR IGNORE … SELECT` in the engine's row chunks, both ends looked up in `nodes` by id in
 * the same statement, as `mergeEdges` does). Shapes:
 * - text: today's `edges` (from_id TEXT, type TEXT, to_id TEXT) WITHOUT ROWID + `edges_to`;
 * - rid: the ends as the nodes' integer rids (from_rid, type TEXT, to_rid) WITHOUT ROWID +
 *   reverse index (to_rid, type, from_rid); the import's lookup id → rid is the endpoint check;
 * - rid+tid: as rid, the type a small integer from an `edge_types` table (looked up once per
 *   statement: a batch of one type binds it once);
 * - rid+tid, null props: as rid+tid, empty props stored as NULL.
 * Process CPU and wall per variant, ROUNDS rounds alternating the variants. Not part of `pnpm bench`.
 *
 * Run: ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/edge-shapes.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { applyEnginePragmas } from './engine-pragmas';

const NODES = Number(process.env.NODES ?? 20000);
const EDGES = Number(process.env.EDGES ?? 40000);
const BATCH = Number(process.env.BATCH ?? 2000);
const CHUNKS = [500, 100, 20, 5, 1];
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

// The bench's rows (import-sizes.ts): ids `article:article-N`, one type, empty props.
const ids = Array.from({ length: NODES }, (_, i) => `article:article-${i}`);
const edgeSet = (round: number) =>
  Array.from({ length: EDGES }, (_, i) => ({
    from: i % NODES,
    to:
      round === 0
        ? (i * 7 + 1 + Math.floor(i / NODES)) % NODES
        : (i * 11 + 3 + Math.floor(i / NODES)) % NODES,
  }));
/**
 * PREFILL=1: the graph already holds EDGES edges (the bench's set, written untimed the same way)
 * and the timed edges are a second, different set (profile-import.ts's second import).
 */
const PREFILL = process.env.PREFILL === '1';
const prefill = PREFILL ? edgeSet(0) : [];
const edges = edgeSet(PREFILL ? 1 : 0);

type Shape = 'text' | 'rid' | 'rid+tid' | 'rid+tid null props';

const TABLES: Record<Shape, string> = {
  text: `CREATE TABLE edges (from_id TEXT NOT NULL, type TEXT NOT NULL, to_id TEXT NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_id, type, to_id)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_id, type, from_id);`,
  rid: `CREATE TABLE edges (from_rid INTEGER NOT NULL, type TEXT NOT NULL, to_rid INTEGER NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_rid, type, to_rid)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_rid, type, from_rid);`,
  'rid+tid': `CREATE TABLE edge_types (tid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE edges (from_rid INTEGER NOT NULL, tid INTEGER NOT NULL, to_rid INTEGER NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_rid, tid, to_rid)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_rid, tid, from_rid);`,
  'rid+tid null props': `CREATE TABLE edge_types (tid INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE edges (from_rid INTEGER NOT NULL, tid INTEGER NOT NULL, to_rid INTEGER NOT NULL, props TEXT,
  PRIMARY KEY (from_rid, tid, to_rid)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_rid, tid, from_rid);`,
};

/** The import's statement head and tail per shape: ?1 type, ?2 props, then (from id, to id) per row. */
const IMPORT: Record<Shape, [string, string]> = {
  text: [
    'INSERT OR IGNORE INTO edges (from_id, type, to_id, props) SELECT column1, ?1, column2, ?2 FROM (VALUES ',
    ') WHERE EXISTS (SELECT 1 FROM nodes WHERE id = column1) AND EXISTS (SELECT 1 FROM nodes WHERE id = column2)',
  ],
  rid: [
    'INSERT OR IGNORE INTO edges (from_rid, type, to_rid, props) SELECT f.rid, ?1, t.rid, ?2 FROM (VALUES ',
    ') v CROSS JOIN nodes f ON f.id = v.column1 CROSS JOIN nodes t ON t.id = v.column2',
  ],
  'rid+tid': [
    'INSERT OR IGNORE INTO edges (from_rid, tid, to_rid, props) SELECT f.rid, ?1, t.rid, ?2 FROM (VALUES ',
    ') v CROSS JOIN nodes f ON f.id = v.column1 CROSS JOIN nodes t ON t.id = v.column2',
  ],
  'rid+tid null props': [
    'INSERT OR IGNORE INTO edges (from_rid, tid, to_rid, props) SELECT f.rid, ?1, t.rid, ?2 FROM (VALUES ',
    ') v CROSS JOIN nodes f ON f.id = v.column1 CROSS JOIN nodes t ON t.id = v.column2',
  ],
};

function run(shape: Shape, mode: 'floor' | 'import'): void {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-edge-shapes-'));
  const db = new Database(join(dir, 'shapes.db'), { timeout: 5000 });
  try {
    applyEnginePragmas(db);
    db.exec(`CREATE TABLE nodes (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, label TEXT NOT NULL,
  labels TEXT NOT NULL, props TEXT NOT NULL, text_given INTEGER NOT NULL DEFAULT 0);
CREATE INDEX nodes_label ON nodes (label, id);`);
    db.exec(TABLES[shape]);
    const put = db.prepare(
      `INSERT INTO nodes (id, label, labels, props) VALUES (?, 'Article', '["Article"]', '{}')`,
    );
    db.exec('BEGIN');
    const rids = ids.map((id) => Number(put.run([id]).lastInsertRowid));
    if (shape !== 'text' && shape !== 'rid') db.exec(`INSERT INTO edge_types (name) VALUES ('RELATED')`);
    db.exec('COMMIT');
    const props = shape === 'rid+tid null props' ? null : '{}';
    const type = shape === 'text' || shape === 'rid' ? 'RELATED' : null;
    const typeId = type === null ? db.prepare('SELECT tid FROM edge_types WHERE name = ?') : null;
    const prepared = new Map<number, ReturnType<typeof db.prepare>>();
    const floorInsert =
      mode === 'floor'
        ? db.prepare(
            shape === 'text'
              ? 'INSERT INTO edges (from_id, type, to_id, props) VALUES (?, ?, ?, ?)'
              : shape === 'rid'
                ? 'INSERT INTO edges (from_rid, type, to_rid, props) VALUES (?, ?, ?, ?)'
                : 'INSERT INTO edges (from_rid, tid, to_rid, props) VALUES (?, ?, ?, ?)',
          )
        : null;
    // The rows as each mode gets them: the floor its keys given (text ids, or rids and the type id
    // as an import would have after its lookups), the import the ids as sent.
    const floorRows = edges.map((e) =>
      shape === 'text'
        ? [ids[e.from]!, 'RELATED', ids[e.to]!, '{}']
        : [rids[e.from]!, type ?? 1, rids[e.to]!, props],
    );
    const importRows = edges.map((e) => [ids[e.from]!, ids[e.to]!]);
    if (PREFILL) {
      const insert = db.prepare(
        shape === 'text'
          ? 'INSERT INTO edges (from_id, type, to_id, props) VALUES (?, ?, ?, ?)'
          : `INSERT INTO edges VALUES (?, ?, ?, ?)`,
      );
      db.exec('BEGIN');
      for (const e of prefill)
        insert.run(
          shape === 'text'
            ? [ids[e.from]!, 'RELATED', ids[e.to]!, '{}']
            : [rids[e.from]!, type ?? 1, rids[e.to]!, props],
        );
      db.exec('COMMIT');
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    let written = 0;
    for (let at = 0; at < EDGES; at += BATCH) {
      db.exec('BEGIN IMMEDIATE');
      if (floorInsert) {
        for (const row of floorRows.slice(at, at + BATCH)) written += floorInsert.run(row).changes;
      } else {
        const tid = type ?? (typeId!.get(['RELATED']) as { tid: number }).tid;
        const batch = importRows.slice(at, at + BATCH);
        let done = 0;
        for (const size of CHUNKS) {
          while (batch.length - done >= size) {
            let statement = prepared.get(size);
            if (!statement) {
              const [head, tail] = IMPORT[shape];
              statement = db.prepare(head + new Array(size).fill('(?, ?)').join(', ') + tail);
              prepared.set(size, statement);
            }
            written += statement.run([tid, props, ...batch.slice(done, done + size).flat()]).changes;
            done += size;
          }
        }
      }
      db.exec('COMMIT');
    }
    const cpuUsed = cpuMs(process.cpuUsage(cpu));
    const wall = performance.now() - started;
    if (written !== EDGES) throw new Error(`${shape} ${mode}: ${written} rows written of ${EDGES}`);
    console.log(
      `${`${shape} ${mode}`.padEnd(28)} cpu ${cpuUsed.toFixed(0).padStart(5)} ms  wall ${wall.toFixed(0).padStart(5)} ms  ${Math.round(
        (EDGES / wall) * 1000,
      )
        .toLocaleString('en-US')
        .padStart(8)} rows/s wall  ${Math.round((EDGES / cpuUsed) * 1000)
        .toLocaleString('en-US')
        .padStart(8)} rows/s CPU`,
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const variants: Array<[Shape, 'floor' | 'import']> = [
  ['text', 'floor'],
  ['text', 'import'],
  ['rid', 'floor'],
  ['rid', 'import'],
  ['rid+tid', 'floor'],
  ['rid+tid', 'import'],
  ['rid+tid null props', 'floor'],
  ['rid+tid null props', 'import'],
];
const only = process.env.VARIANTS?.split(',').map(Number);
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round += 1) {
  console.log(
    `round ${round + 1}, load ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`,
  );
  variants.forEach(([shape, mode], i) => {
    if (only === undefined || only.includes(i)) run(shape, mode);
  });
}
