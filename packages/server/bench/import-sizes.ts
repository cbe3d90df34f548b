/**
 * Import against its floor, by record size (issue 20, item 4): for small (~100 B), medium
 * (~400 B) and large (~2.5 KB markdown body) records, in the same run,
 * - `POST /api/import/json` records/s through HTTP on loopback against the real app (embedded
 *   engine, a fresh data directory per size, batchSize 500), and
 * - a raw libSQL floor on the same rows: per row one plain INSERT of the record's JSON (into a
 *   table with a rowid and a unique id, as the engine's `nodes`) and one FTS5 entry of the same
 *   text the import indexes (`searchText` of the type's text fields), with the engine's
 *   durability (WAL, synchronous=FULL), checkpoint interval and cache pragmas, its FTS5 table definition (contentless,
 *   contentless_delete, unicode61 remove_diacritics 2, automerge 16), one transaction per 500
 *   rows. The JSON and the text are made before the clock starts: the floor is SQLite's work only.
 * Then `POST /api/import/edges` (batchSize 2000) between the small records: edges/s, after a
 * discarded warm-up edge import of up to 2,000 edges between the warm-up records.
 *
 * Used by import.bench.ts, which writes the `import-sizes` section of docs/benchmarks.md.
 * Quick run of this part only: BENCH_IMPORT_SIZES_ONLY=1 (sample per size: BENCH_SIZE_RECORDS,
 * 2,000 then; it writes the doc only with BENCH_WRITE_DOC=1). BENCH_IMPORT_THREAD=0 turns the
 * import's preparing thread off (content/import-pipeline.ts), for an A/B in one tree.
 * BENCH_IMPORT_NO_UNIQUE=1 declares the slug without its unique constraint: what the unique value
 * row (engines/embedded/schema.ts `unique_values`) costs an import, for the doc; not the bench's figure.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchText } from '@trelliscms/core';
import Database from 'libsql';
import { loadConfig } from '../src/config';
import { importThread, importThreadReady, importThreadStats } from '../src/content/import-pipeline';
import { detachedWriteStats, detachedWrites } from '../src/content/import-records';
import { detachedWriterStats } from '../src/engines/embedded/detached-writer';
import { EDGES_SQL } from '../src/engines/embedded/schema';
import { buildApp } from '../src/http/app';
import { benchApi, benchAppEnv, benchSendJson } from './bench-app';
import { applyEnginePragmas } from './engine-pragmas';

export const BATCH = 500;
/** Alternating floor/import rounds per size (BENCH_IMPORT_ROUNDS); the table shows the median round. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_IMPORT_ROUNDS ?? 5));

// BENCH_IMPORT_THREAD=0: the import makes every row in its own thread (no preparing thread), for A/B runs.
if (process.env.BENCH_IMPORT_THREAD === '0') importThread.enabled = false;
// BENCH_IMPORT_DETACHED=0: every batch written in a transaction on the main thread (no
// createNodeRunDetached), for A/B runs in one tree.
if (process.env.BENCH_IMPORT_DETACHED === '0') detachedWrites.enabled = false;
// BENCH_IMPORT_DETACHED_MAX_BYTES: the detached writes' limit of JSON bytes per record
// (detachedWrites.maxBytesPerRecord; no limit by default; 1024 keeps large records on the main thread).
if (process.env.BENCH_IMPORT_DETACHED_MAX_BYTES)
  detachedWrites.maxBytesPerRecord = Number(process.env.BENCH_IMPORT_DETACHED_MAX_BYTES);
// BENCH_IMPORT_DETACHED_IN_FLIGHT: batches sent before the oldest is settled (detachedWrites.inFlight; 1: round 10's one at a time).
if (process.env.BENCH_IMPORT_DETACHED_IN_FLIGHT)
  detachedWrites.inFlight = Number(process.env.BENCH_IMPORT_DETACHED_IN_FLIGHT);
// BENCH_IMPORT_DETACHED_THREAD=1: the preparing thread runs beside the detached writes too.
if (process.env.BENCH_IMPORT_DETACHED_THREAD === '1') detachedWrites.withPreparingThread = true;
// BENCH_IMPORT_THREAD_MAX_BYTES: the preparing thread's limit of JSON bytes per record (A/B runs).
if (process.env.BENCH_IMPORT_THREAD_MAX_BYTES)
  importThread.maxBytesPerRecord = Number(process.env.BENCH_IMPORT_THREAD_MAX_BYTES);
const EDGE_BATCH = 2000;
/** A discarded edge import before the timed one (BENCH_EDGE_WARMUP=0 leaves it out, for comparison with older runs). */
const EDGE_WARM_UP = process.env.BENCH_EDGE_WARMUP !== '0';
export const GOAL_RATIO = 0.75;
export const GOAL_EDGES_PER_SEC = 100_000;

export const sizes = [
  { name: 'small', label: 'small (~100 B)', bodyBytes: 40 },
  { name: 'medium', label: 'medium (~400 B)', bodyBytes: 330 },
  { name: 'large', label: 'large (~2.5 KB markdown body)', bodyBytes: 2_450 },
] as const;
export type SizeName = (typeof sizes)[number]['name'];

const articleType = {
  name: 'article',
  label: 'Article',
  nodeLabel: 'Article',
  keyField: 'slug',
  fields: [
    { name: 'slug', type: 'string', required: true, unique: process.env.BENCH_IMPORT_NO_UNIQUE !== '1' },
    { name: 'title', type: 'string', required: true, maxLength: 200 },
    { name: 'body', type: 'markdown' },
  ],
  relationships: [{ name: 'related', edgeLabel: 'RELATED', target: 'article', kind: 'many-to-many' }],
} as const;

const WORDS =
  'graph content site page build import record field query index engine server static render layout partial template author tag post list draft publish version release deploy cache search text markdown'.split(
    ' ',
  );

/** A deterministic markdown body of about `bytes` bytes (headings, paragraphs, a list, emphasis). */
function markdownBody(i: number, bytes: number): string {
  let out = '';
  let k = i;
  let sentence = 0;
  while (out.length < bytes) {
    if (sentence % 12 === 0 && bytes > 500)
      out += `${out === '' ? '' : '\n\n'}## Section ${sentence / 12 + 1}\n\n`;
    else if (sentence % 5 === 4) out += `\n- ${WORDS[k % WORDS.length]} *${WORDS[(k + 3) % WORDS.length]}*`;
    const words: string[] = [];
    for (let w = 0; w < 9; w += 1) {
      k = (k * 1103515245 + 12345) % 2147483648;
      words.push(WORDS[k % WORDS.length]!);
    }
    out += `${out === '' || out.endsWith('\n') ? '' : ' '}${words.join(' ')} ${i}.`;
    sentence += 1;
  }
  return out.slice(0, bytes);
}

export function sizedRecord(i: number, bodyBytes: number): Record<string, unknown> {
  return { slug: `article-${i}`, title: `Article number ${i}`, body: markdownBody(i, bodyBytes) };
}

export interface SizeResult {
  size: SizeName;
  label: string;
  records: number;
  bytesPerRecord: number;
  importPerSec: number;
  floorPerSec: number;
  importCpuMs: number;
  floorCpuMs: number;
  /** Import / floor of every round, in order (the figures above are the median round's). */
  ratios: number[];
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** The raw libSQL floor: plain inserts of the JSON plus FTS5 entries, one transaction per 500 rows. */
export function floor(rows: Array<{ id: string; json: string; text: string }>): {
  ms: number;
  cpuMs: number;
} {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-import-floor-'));
  const db = new Database(join(dir, 'floor.db'), { timeout: 5000 });
  try {
    // The engine's durability, checkpoint interval, page cache and memory map.
    applyEnginePragmas(db);
    db.exec(`CREATE TABLE records (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
CREATE VIRTUAL TABLE records_fts USING fts5 (body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO records_fts (records_fts, rank) VALUES ('automerge', 16);`);
    const insert = db.prepare('INSERT INTO records (id, json) VALUES (?, ?)');
    const fts = db.prepare('INSERT INTO records_fts (rowid, body) VALUES (?, ?)');
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let at = 0; at < rows.length; at += BATCH) {
      db.exec('BEGIN IMMEDIATE');
      for (const row of rows.slice(at, at + BATCH)) {
        const rid = insert.run([row.id, row.json]).lastInsertRowid;
        fts.run([rid, row.text]);
      }
      db.exec('COMMIT');
    }
    return { ms: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Schema 5's edges table (before schema 6 keyed edges by the ends' rids), for the old floor beside the new. */
const TEXT_EDGES_SQL = `CREATE TABLE edges (from_id TEXT NOT NULL, type TEXT NOT NULL, to_id TEXT NOT NULL, props TEXT NOT NULL,
  PRIMARY KEY (from_id, type, to_id)) WITHOUT ROWID;
CREATE INDEX edges_to ON edges (to_id, type, from_id);`;

/**
 * The edges table's own floor: `edges` plain INSERTs (one prepared statement, one row each) into
 * the embedded engine's edges table and its reverse index as the schema makes them (schema.ts
 * `EDGES_SQL`: keyed by the ends' rids and the type's integer, (from_rid, tid, to_rid), and
 * `edges_to`), the rids and tids given (`ridOf`, the rids the import's nodes have; the types
 * entered in `edge_types` before the clock starts), with the same pragmas as {@link floor}, one
 * transaction per EDGE_BATCH rows, the rows made before the clock starts. Not the engine's
 * other work per edge (both ends looked up and checked to exist, the audit entry): what SQLite
 * alone needs for these rows. `shape: 'text'`: the same into schema 5's table, keyed by the
 * ends' id strings (from_id, type, to_id), the floor before schema 6.
 */
export function edgeFloor(
  edges: Array<{ from: string; edge: string; to: string }>,
  ridOf: ReadonlyMap<string, number>,
  shape: 'engine' | 'text' = 'engine',
): {
  ms: number;
  cpuMs: number;
} {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-edge-floor-'));
  const db = new Database(join(dir, 'floor.db'), { timeout: 5000 });
  try {
    applyEnginePragmas(db);
    db.exec(shape === 'text' ? TEXT_EDGES_SQL : EDGES_SQL);
    const insert = db.prepare(
      shape === 'text'
        ? 'INSERT INTO edges (from_id, type, to_id, props) VALUES (?, ?, ?, ?)'
        : 'INSERT INTO edges (from_rid, tid, to_rid, props) VALUES (?, ?, ?, ?)',
    );
    const tids = new Map<string, number>();
    if (shape !== 'text') {
      const enter = db.prepare('INSERT INTO edge_types (name) VALUES (?)');
      for (const edge of edges) {
        if (!tids.has(edge.edge)) tids.set(edge.edge, Number(enter.run([edge.edge]).lastInsertRowid));
      }
    }
    const rid = (id: string) => {
      const found = ridOf.get(id);
      if (found === undefined) throw new Error(`edge floor: no rid for ${id}`);
      return found;
    };
    const rows = edges.map((edge) =>
      shape === 'text'
        ? [edge.from, edge.edge, edge.to, '{}']
        : [rid(edge.from), tids.get(edge.edge)!, rid(edge.to), '{}'],
    );
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let at = 0; at < rows.length; at += EDGE_BATCH) {
      db.exec('BEGIN IMMEDIATE');
      for (const row of rows.slice(at, at + EDGE_BATCH)) insert.run(row);
      db.exec('COMMIT');
    }
    return { ms: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function post(base: string, site: string | null, path: string, body: unknown): Promise<unknown> {
  return (await benchApi(base, site, 'POST', path, body)).json();
}

/** A fresh app (own data dir) with one site holding the article type; `use` runs against it. */
export async function withArticleSite<T>(use: (base: string, site: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-import-sizes-'));
  const config = loadConfig(benchAppEnv(dataDir));
  const app = await buildApp({ config, logger: false });
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const { id: site } = (await post(base, null, '/api/sites', {
      name: 'Import sizes',
      slug: `sizes-${Date.now().toString(36)}`,
      starterKit: 'none',
    })) as { id: string };
    await post(base, site, '/api/types', articleType);
    return await use(base, site);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One `POST /api/import/json` of `records`: wall ms and this process's CPU ms (server and client). */
export async function importOnce(
  base: string,
  site: string,
  records: Record<string, unknown>[],
): Promise<{ ms: number; cpuMs: number; mainThreadMs: number; tookMs: number }> {
  // the body's bytes are made before the clock starts, as the floor's rows are
  const payload = Buffer.from(JSON.stringify({ typeName: 'article', records, batchSize: BATCH }));
  const cpu = process.cpuUsage();
  const main = mainThreadMs();
  const started = performance.now();
  const result = (await benchSendJson(base, site, '/api/import/json', payload)) as {
    created: number;
    failed: number;
    tookMs: number;
  };
  const ms = performance.now() - started;
  if (result.created !== records.length)
    throw new Error(`import created ${result.created} of ${records.length}`);
  return {
    ms,
    cpuMs: cpuMs(process.cpuUsage(cpu)),
    mainThreadMs: mainThreadMs() - main,
    tookMs: result.tookMs,
  };
}

/**
 * This process's main thread's CPU time in ms (Linux: /proc, 10 ms ticks), without its other
 * threads (the import's preparing thread, libuv's and libsql's pools); NaN elsewhere.
 */
function mainThreadMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export async function benchImportSizes({
  records,
  edges,
  only,
}: {
  records: Record<SizeName, number>;
  edges: number;
  only?: SizeName[];
}): Promise<{
  results: SizeResult[];
  edgesPerSec: number | null;
  edgeFloorPerSec: number | null;
  /** The floor of schema 5's edges table (keyed by the ends' id strings) on the same rows. */
  edgeTextFloorPerSec: number | null;
  /** The edges floor's CPU time over the edge import's (process: server and client). */
  edgeCpuRatio: number | null;
  edges: number;
  loads: string[];
}> {
  const loads = [loadText()];
  const results: SizeResult[] = [];
  let edgesPerSec: number | null = null;
  let edgeFloorPerSec: number | null = null;
  let edgeTextFloorPerSec: number | null = null;
  let edgeCpuRatio: number | null = null;
  for (const size of sizes) {
    if (only && !only.includes(size.name)) continue;
    const count = records[size.name];
    const list = Array.from({ length: count }, (_, i) => sizedRecord(i, size.bodyBytes));
    const rows = list.map((record) => ({
      id: `article:${record.slug as string}`,
      json: JSON.stringify(record),
      text: searchText({ type: { fields: [...articleType.fields] }, fields: record }),
    }));
    const bytesPerRecord = Math.round(rows.reduce((sum, row) => sum + row.json.length, 0) / rows.length);
    // Alternating rounds (floor, then import, each round a fresh data directory in this same
    // process): the row is the round of the median ratio; every round's ratio is shown beside it.
    const pairs: Array<{
      floorRun: { ms: number; cpuMs: number };
      run: Awaited<ReturnType<typeof importOnce>>;
    }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const floorRun = floor(rows);
      console.error(`[sizes] ${size.name}: floor ${Math.round(floorRun.ms)} ms for ${count} rows`);
      const { run, edgeRun } = await withArticleSite(async (base, site) => {
        // A discarded warm-up import of other records first, so the JIT is warm for the measured one.
        const warm = Array.from({ length: Math.min(1_000, count) }, (_, i) => ({
          ...sizedRecord(i, size.bodyBytes),
          slug: `warm-${i}`,
        }));
        await importOnce(base, site, warm);
        // The import's preparing thread loaded (from the TypeScript sources here: its start-up
        // takes about a second, which a server started from dist/ does not pay at this scale).
        await importThreadReady();
        const before = { ...importThreadStats };
        const beforeDetached = { ...detachedWriteStats };
        const writerBefore = await detachedWriterStats();
        const run = await importOnce(base, site, list);
        const writerAfter = await detachedWriterStats();
        console.error(
          `[sizes] ${size.name}: batches with rows made on the preparing thread ${importThreadStats.fromThread - before.fromThread} of ${importThreadStats.batches - before.batches}; written off the main thread ${detachedWriteStats.batches - beforeDetached.batches} (the import waited for them ${Math.round(detachedWriteStats.waitedMs - beforeDetached.waitedMs)} ms${writerAfter === null ? '' : `; the writer's thread: ${writerAfter.batches - (writerBefore?.batches ?? 0)} batches, ${Math.round(writerAfter.writeMs - (writerBefore?.writeMs ?? 0))} ms in them, of which COMMIT ${Math.round(writerAfter.commitMs - (writerBefore?.commitMs ?? 0))} ms, its CPU ${writerAfter.cpuMs - (writerBefore?.cpuMs ?? 0)} ms`})`,
        );
        let edgeRun: { ms: number; cpuMs: number; floorCpuMs: number } | null = null;
        if (size.name === 'small' && edges > 0 && EDGE_WARM_UP && round === 0) {
          // A discarded warm-up edge import between the warm-up records, as for the records: the
          // edge route's code is compiled before the timed import (BENCH_EDGE_WARMUP=0: none).
          const warmEdges = Array.from({ length: Math.min(EDGE_BATCH, warm.length * 2) }, (_, i) => ({
            from: `article:warm-${i % warm.length}`,
            edge: 'RELATED',
            to: `article:warm-${(i * 7 + 1 + Math.floor(i / warm.length)) % warm.length}`,
            props: {},
          }));
          const warmResult = (await post(
            base,
            site,
            '/api/import/edges',
            JSON.stringify({ edges: warmEdges, batchSize: EDGE_BATCH }),
          )) as { failed: number; mismatch: number };
          if (warmResult.failed > 0 || warmResult.mismatch > 0)
            throw new Error(`warm-up edge import: ${JSON.stringify(warmResult)}`);
        }
        if (size.name === 'small' && edges > 0 && round === 0) {
          const edgeList = Array.from({ length: edges }, (_, i) => ({
            from: `article:article-${i % count}`,
            edge: 'RELATED',
            to: `article:article-${(i * 7 + 1 + Math.floor(i / count)) % count}`,
            props: {},
          }));
          // The edges table's own floor on the same rows, in the same process just before; the
          // rids are the nodes' (the warm-up records took the first ones), and schema 5's floor.
          const ridOf = new Map(
            list.map((record, i) => [`article:${record.slug as string}`, warm.length + i + 1]),
          );
          const edgeFloorRun = edgeFloor(edgeList, ridOf);
          edgeFloorPerSec = (edges / edgeFloorRun.ms) * 1000;
          const textFloorRun = edgeFloor(edgeList, ridOf, 'text');
          edgeTextFloorPerSec = (edges / textFloorRun.ms) * 1000;
          console.error(
            `[sizes] edges: floor ${Math.round(edgeFloorRun.ms)} ms (cpu ${Math.round(edgeFloorRun.cpuMs)} ms) for ${edges} rows; schema 5's text-keyed floor ${Math.round(textFloorRun.ms)} ms (cpu ${Math.round(textFloorRun.cpuMs)} ms)`,
          );
          const payload = Buffer.from(JSON.stringify({ edges: edgeList, batchSize: EDGE_BATCH }));
          const cpu = process.cpuUsage();
          const started = performance.now();
          const result = (await benchSendJson(base, site, '/api/import/edges', payload)) as {
            failed: number;
            mismatch: number;
          };
          if (result.failed > 0 || result.mismatch > 0)
            throw new Error(`edge import: ${JSON.stringify(result)}`);
          edgeRun = {
            ms: performance.now() - started,
            cpuMs: cpuMs(process.cpuUsage(cpu)),
            floorCpuMs: edgeFloorRun.cpuMs,
          };
          console.error(
            `[sizes] edges: import ${Math.round(edgeRun.ms)} ms, process cpu ${Math.round(edgeRun.cpuMs)} ms; load ${loadText()}`,
          );
        }
        return { run, edgeRun };
      });
      console.error(
        `[sizes] ${size.name}: import ${Math.round(run.ms)} ms (of which the records' import ${Math.round(run.tookMs)} ms: the response's tookMs), process cpu ${Math.round(run.cpuMs)} ms, main thread cpu ${run.mainThreadMs} ms; floor ${Math.round(floorRun.ms)} ms (cpu ${Math.round(floorRun.cpuMs)} ms); load ${loadText()}`,
      );
      if (edgeRun) {
        edgesPerSec = (edges / edgeRun.ms) * 1000;
        edgeCpuRatio = edgeRun.floorCpuMs / edgeRun.cpuMs;
      }
      pairs.push({ floorRun, run });
    }
    const ratios = pairs.map((pair) => pair.floorRun.ms / pair.run.ms);
    const median =
      pairs[[...ratios.keys()].sort((a, b) => ratios[a]! - ratios[b]!)[Math.floor((pairs.length - 1) / 2)]!]!;
    const { floorRun, run } = median;
    results.push({
      size: size.name,
      label: size.label,
      records: count,
      bytesPerRecord,
      importPerSec: (count / run.ms) * 1000,
      floorPerSec: (count / floorRun.ms) * 1000,
      importCpuMs: run.cpuMs,
      floorCpuMs: floorRun.cpuMs,
      ratios,
    });
    loads.push(loadText());
  }
  return { results, edgesPerSec, edgeFloorPerSec, edgeTextFloorPerSec, edgeCpuRatio, edges, loads };
}

function loadText(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');
}

const rate = (n: number) => Math.round(n).toLocaleString('en-US');

export function sizeRow(result: SizeResult): string {
  const ratio = result.importPerSec / result.floorPerSec;
  const cpuRatio = result.floorCpuMs / result.importCpuMs;
  return `| ${result.label} | ${result.bytesPerRecord.toLocaleString('en-US')} B | ${rate(result.importPerSec)} | ${rate(result.floorPerSec)} | ${Math.round(ratio * 100)} % ${ratio >= GOAL_RATIO ? '(met)' : '(not met)'} | ${result.ratios.map((r) => `${Math.round(r * 100)} %`).join(' / ')} | ${Math.round(cpuRatio * 100)} % | ${result.records.toLocaleString('en-US')} |`;
}

/** The lines of the `import-sizes` section of docs/benchmarks.md. */
export function sizeSection(
  run: Awaited<ReturnType<typeof benchImportSizes>>,
  extra: string[] = [],
): string[] {
  const edges =
    run.edgesPerSec === null
      ? 'Edges were not measured this run.'
      : `Edges: ${rate(run.edgesPerSec)} edges/s (\`POST /api/import/edges\`, ${run.edges.toLocaleString('en-US')} edges between the small records, batchSize ${EDGE_BATCH}${EDGE_WARM_UP ? ', after a discarded warm-up edge import' : ''}; goal ≥ ${rate(GOAL_EDGES_PER_SEC)}/s: ${run.edgesPerSec >= GOAL_EDGES_PER_SEC ? 'met' : 'not met'}).${run.edgeFloorPerSec === null ? '' : ` The edges table's own floor on the same rows, just before in the same process (plain INSERTs, one per edge, into the engine's edges table and \`edges_to\` index — schema 7: keyed by the ends' rids and the type's integer, these given — same pragmas, one transaction per ${EDGE_BATCH}; no endpoint lookups or checks): ${rate(run.edgeFloorPerSec)} rows/s, so the import is at ${Math.round((run.edgesPerSec / run.edgeFloorPerSec) * 100)} % of it (CPU floor / import ${run.edgeCpuRatio === null ? '–' : `${Math.round(run.edgeCpuRatio * 100)} %`}).${run.edgeTextFloorPerSec === null ? '' : ` The same floor in schema 5's table (keyed by the ends' id strings), for comparison: ${rate(run.edgeTextFloorPerSec)} rows/s.`}`}`;
  return [
    '## Import against the raw libSQL floor, by record size',
    '',
    `Measured by \`pnpm --filter @trelliscms/server bench\` (\`packages/server/bench/import-sizes.ts\`, called by \`import.bench.ts\`; this part alone: \`BENCH_ONLY=import BENCH_IMPORT_SIZES_ONLY=1\`), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}; machine load (\`os.loadavg()\`, 1 / 5 / 15 min) at the start ${run.loads[0]}, after each size ${run.loads.slice(1).join('; ')}.`,
    `Import: one \`POST /api/import/json\` of all records through HTTP on loopback against the real app (embedded engine, a fresh data directory per round after a discarded warm-up import of up to 1,000 other records, batchSize ${BATCH}; the request body's bytes are made before the clock starts and sent as they are with node:http). ${ROUNDS} alternating rounds per size, each a floor run then an import in this one process; the figures are the round of the median ratio, and the first round is the one nearest a freshly started server (its JIT has seen only the warm-up). Floor, in the same process just before its import: the same records' JSON as plain INSERTs into a table with a rowid and a unique id, plus one FTS5 entry each of the same text the import indexes (the type's text fields), with the embedded engine's durability (WAL, synchronous=FULL), checkpoint interval (10,000 pages), page cache and memory map (64 MiB, 256 MiB) and its FTS5 definition (contentless, contentless_delete, unicode61 remove_diacritics 2, automerge 16), one transaction per ${BATCH} rows, the JSON and text made before the clock starts. Goal: import ≥ ${Math.round(GOAL_RATIO * 100)} % of the floor. "CPU floor / import" is the floor's CPU time over the import's (server and client, one process): less disturbed by other work on a shared machine than wall time.`,
    '',
    '| Records | JSON per record | Import (records/s) | Floor (rows/s) | Import / floor (median round) | Every round, in order | CPU floor / import | Records |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...run.results.map(sizeRow),
    '',
    edges,
    ...extra,
    '',
  ];
}
