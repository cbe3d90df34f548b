/**
 * What SQLite does beyond the import's floor, by row shape (issue 20, item 4; docs/benchmarks.md,
 * "Import against the raw libSQL floor", round 3): N small records (BODY characters of body) as
 * raw SQL, one statement per row, transactions of 500, the engine's pragmas and schema, process
 * CPU per variant: the floor of import-sizes.ts, the rows as the import writes them (nodes row
 * with the item's bookkeeping in its props, the `Content` extra-label row, the full-text entry,
 * the unique slug), and that shape without one piece or another (session 14, round 8: each of
 * the structures the floor does not have, dropped one at a time). Not part of `pnpm bench`.
 *
 * Run: N=20000 BODY=40 ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/row-shapes.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchText } from '@trelliscms/core';
import Database from 'libsql';
import { SCHEMA_SQL } from '../src/engines/embedded/schema';
import { applyEnginePragmas } from './engine-pragmas';
import { sizedRecord } from './import-sizes';

const N = Number(process.env.N ?? 20000);
const BODY = Number(process.env.BODY ?? 40);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
/** The bookkeeping a new item carried in its props until session 21 (item-record.ts now leaves out the members that hold their defaults; writer-floor.ts writes today's). */
const meta = (i: number) => ({
  status: 'draft',
  publishedEnvs: [],
  publishedVersions: {},
  publishedAt: null,
  version: 1,
  hash: `sha256:${'a'.repeat(64)}`,
  blockDocument: { time: 1764100000000 + i, blocks: [], version: '1' },
  createdAt: '2026-11-26T01:00:00.000Z',
  updatedAt: '2026-11-26T01:00:00.000Z',
  createdBy: 'apikey:owner',
  updatedBy: 'apikey:owner',
});
/** The same without the members that hold their defaults. */
const compactMeta = () => ({
  hash: `sha256:${'a'.repeat(64)}`,
  createdAt: '2026-11-26T01:00:00.000Z',
  createdBy: 'apikey:owner',
});
const type = {
  fields: [
    { name: 'slug', type: 'string' },
    { name: 'title', type: 'string' },
    { name: 'body', type: 'markdown' },
  ],
};
const records = Array.from({ length: N }, (_, i) => sizedRecord(i, BODY));
const texts = records.map((record) => searchText({ type: type as never, fields: record }));

interface Variant {
  floor?: boolean;
  /** Bookkeeping members that hold their defaults left out of the props. */
  compact?: boolean;
  /** Write the `Content` row of node_labels (default true). */
  labels?: boolean;
  /** Keep the unique_values_rid index (default true). */
  uniqueRid?: boolean;
  /** Write the unique_values row (default true). */
  unique?: boolean;
  /** Keep the nodes_label (label, id) index (default true). */
  labelIndex?: boolean;
  /** Schema 5: one `label_carriers` row per batch instead (with labels: false). */
  carriers?: boolean;
  /**
   * The unique slug checked by a partial unique expression index on the nodes row (`props ->
   * '$.slug'`, the value's JSON text, so 1, "1" and true differ) instead of a unique_values row
   * (with unique: false; round 9).
   */
  expression?: boolean;
}

function run(name: string, variant: Variant): void {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-row-shapes-'));
  const db = new Database(join(dir, 'shapes.db'), { timeout: 5000 });
  try {
    applyEnginePragmas(db);
    if (variant.floor) {
      db.exec(`CREATE TABLE records (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
CREATE VIRTUAL TABLE records_fts USING fts5 (body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO records_fts (records_fts, rank) VALUES ('automerge', 16);`);
    } else {
      db.exec(SCHEMA_SQL);
      // Schema 4's table of further labels, one row per node and label (schema 5 has none).
      db.exec(
        `CREATE TABLE node_labels (label TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (label, rid)) WITHOUT ROWID`,
      );
      // The structures of schema version 4 the floor does not have, dropped one at a time.
      if (variant.uniqueRid === false) db.exec('DROP INDEX IF EXISTS unique_values_rid');
      if (variant.labelIndex === false) db.exec('DROP INDEX IF EXISTS nodes_label');
      if (variant.expression)
        db.exec(
          `CREATE UNIQUE INDEX nodes_unique_article_slug ON nodes (props -> '$.slug') WHERE label = 'Article'`,
        );
    }
    const rows = records.map((record, i) => ({
      id: `article:${record.slug}`,
      json: JSON.stringify(
        variant.floor ? record : { ...record, ...(variant.compact ? compactMeta() : meta(i)) },
      ),
      text: texts[i]!,
    }));
    const insert = variant.floor
      ? db.prepare('INSERT INTO records (id, json) VALUES (?, ?)')
      : db.prepare(
          `INSERT INTO nodes (id, label, labels, props, text_given) VALUES (?, 'Article', '["Article","Content"]', ?, 1)`,
        );
    const fts = db.prepare(
      variant.floor
        ? 'INSERT INTO records_fts (rowid, body) VALUES (?, ?)'
        : 'INSERT INTO nodes_fts (rowid, body) VALUES (?, ?)',
    );
    const label = variant.floor
      ? null
      : db.prepare(`INSERT INTO node_labels (label, rid) VALUES ('Content', ?)`);
    const unique =
      variant.floor || variant.unique === false
        ? null
        : db.prepare(`INSERT INTO unique_values (label, prop, value, rid) VALUES ('Article', 'slug', ?, ?)`);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let at = 0; at < rows.length; at += 500) {
      db.exec('BEGIN IMMEDIATE');
      if (variant.carriers)
        db.exec(`INSERT OR IGNORE INTO label_carriers (label, primary_label) VALUES ('Content', 'Article')`);
      for (const row of rows.slice(at, at + 500)) {
        const rid = insert.run([row.id, row.json]).lastInsertRowid;
        fts.run([rid, row.text]);
        if (variant.labels !== false) label?.run([rid]);
        unique?.run([JSON.stringify(row.id.slice('article:'.length)), rid]);
      }
      db.exec('COMMIT');
    }
    const bytes = Math.round(rows.reduce((sum, row) => sum + row.json.length, 0) / N);
    console.log(
      `${name.padEnd(44)} cpu ${cpuMs(process.cpuUsage(cpu)).toFixed(0).padStart(6)} ms  wall ${(performance.now() - started).toFixed(0).padStart(6)} ms  JSON ${bytes} B/row`,
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const variants: Array<[string, Variant]> = [
  ['floor', { floor: true }],
  ['as imported in schema 4', {}],
  ['no node_labels row', { labels: false }],
  ['schema 5 (label_carriers row per batch)', { labels: false, carriers: true }],
  ['no unique_values_rid index', { uniqueRid: false }],
  ['no unique_values row', { unique: false }],
  ['no nodes_label index', { labelIndex: false }],
  ['bookkeeping defaults left out', { compact: true }],
  ['no node_labels row, no unique rid index', { labels: false, uniqueRid: false }],
  ['none of labels row/rid index/label index', { labels: false, uniqueRid: false, labelIndex: false }],
  [
    'all of the above, no unique row, compact',
    { labels: false, unique: false, labelIndex: false, compact: true },
  ],
  // round 9 (schema 5 as the base)
  ['schema 5, no unique row', { labels: false, carriers: true, unique: false }],
  [
    'schema 5, unique by expression index',
    { labels: false, carriers: true, unique: false, expression: true },
  ],
  ['schema 5, compact', { labels: false, carriers: true, compact: true }],
  [
    'schema 5, expression index, compact',
    { labels: false, carriers: true, unique: false, expression: true, compact: true },
  ],
];
const only = process.env.VARIANTS?.split(',').map(Number);
for (let round = 0; round < Number(process.env.ROUNDS ?? 2); round += 1) {
  variants.forEach(([name, variant], i) => {
    if (only === undefined || only.includes(i)) run(name, variant);
  });
}
