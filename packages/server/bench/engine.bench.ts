/**
 * Graph engine benchmark: bulk node inserts (`createNodes`, one transaction per batch of 1000)
 * and point-read latency through the GraphEngine port, with node-by-node `createNode` inside a
 * transaction per batch as a second figure. Always measures the embedded engine; also Neo4j when
 * NEO4J_URI is set. Writes the "Graph engine" section of docs/benchmarks.md (between the
 * `bench:engine` markers), keeping the rest of the file and the last Neo4j row when Neo4j is
 * not measured this time.
 *
 * Run: pnpm --filter @trelliscms/server bench   (env: BENCH_NODES, BENCH_SINGLE_NODES, BENCH_READS,
 * BENCH_NEO4J_NODES, BENCH_NEO4J_SINGLE_NODES, BENCH_NEO4J_READS)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqlConnection, type SqlValue } from '../src/engines/embedded/connection';
import { nodeRunSql } from '../src/engines/embedded/graph-store';
import { createEmbeddedEngine } from '../src/engines/embedded/index';
import type { Graph, GraphEngine, GraphNode } from '../src/engines/port';
import { benchmarksDoc, readDocSection, writeDocSection } from './doc-section';
import { isBusy, loadNow, neo4jCpuClock, neo4jServerInfo } from './neo4j-server';

const BATCH = 1000;
const NODES = Number(process.env.BENCH_NODES ?? 100_000);
/** Nodes for the node-by-node figure (slower, so fewer). */
const SINGLE_NODES = Number(process.env.BENCH_SINGLE_NODES ?? 20_000);
const READS = Number(process.env.BENCH_READS ?? 200_000);
const GOAL_INSERTS = 50_000;
const GOAL_READ_US = 20;

interface Result {
  engine: string;
  nodes: number;
  insertsPerSec: number;
  /** Nodes per second of this process's CPU time: less sensitive to other work on the machine. */
  insertsPerCpuSec: number | null;
  /** The same inserts as one awaited createNode per node, a transaction per batch. */
  singleInsertsPerSec: number;
  singleInsertsPerCpuSec: number | null;
  singleNodes: number;
  /** The same inserts as bare SQL on the driver (no port), for the floor on this machine. */
  rawInsertsPerSec: number | null;
  readMedianUs: number;
  readP99Us: number;
  rawMedianUs: number | null;
  reads: number;
  /** When it was measured, and the load average then (other work on the machine). */
  measuredAt: string;
}

function stamp(): string {
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load ${loadavg()[0]?.toFixed(1)}`;
}

function props(i: number) {
  return {
    title: `Item number ${i}`,
    slug: `item-${i}`,
    n: i,
    published: i % 2 === 0,
    tags: ['bench', `t${i % 10}`],
    body: `Body text of item ${i}: a few words to index, with some variety ${i % 97}.`,
  };
}

/** Bulk insert through the port: one createNodes call (its own transaction) per batch. */
async function measureInserts(
  graph: Graph,
  nodes: number,
  prefix = 'item',
): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let start = 0; start < nodes; start += BATCH) {
    const batch: GraphNode[] = [];
    for (let i = start; i < Math.min(nodes, start + BATCH); i++) {
      batch.push({ id: `${prefix}:${i}`, labels: ['Item'], props: props(i) });
    }
    await graph.createNodes(batch);
  }
  const cpu = process.cpuUsage(cpuStarted);
  return {
    wall: nodes / ((performance.now() - started) / 1000),
    cpu: nodes / ((cpu.user + cpu.system) / 1e6),
  };
}

/** Node by node: an awaited createNode per node, one transaction per batch. */
async function measureSingleInserts(graph: Graph, nodes: number): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let start = 0; start < nodes; start += BATCH) {
    const end = Math.min(nodes, start + BATCH);
    await graph.transaction(async (tx) => {
      for (let i = start; i < end; i++)
        await tx.createNode({ id: `single:${i}`, labels: ['Item'], props: props(i) });
    });
  }
  const cpu = process.cpuUsage(cpuStarted);
  return {
    wall: nodes / ((performance.now() - started) / 1000),
    cpu: nodes / ((cpu.user + cpu.system) / 1e6),
  };
}

/** Rows per statement in the raw floor, as the engine's largest multi-row INSERT. */
const RAW_ROWS = 500;

/**
 * The floor: the statements the engine issues for a batch (`nodeRunSql`: multi-row INSERTs of
 * 500 nodes with rids after max(rid) and the shared labels bound once, then their full-text
 * rows the same way), straight on a libsql connection with the engine's pragmas and FTS5
 * settings, without validation or the port.
 */
function measureRawInserts(file: string, count: number): number {
  const nodes = Math.max(RAW_ROWS, Math.floor(count / RAW_ROWS) * RAW_ROWS);
  const conn = new SqlConnection(file);
  conn.exec('PRAGMA journal_mode = WAL');
  conn.exec('PRAGMA synchronous = FULL');
  conn.exec('PRAGMA cache_size = -65536');
  const nodeSql = nodeRunSql('shared', RAW_ROWS);
  const textSql = nodeRunSql('text', RAW_ROWS);
  const started = performance.now();
  for (let start = 0; start < nodes; start += BATCH) {
    conn.exec('BEGIN IMMEDIATE');
    let rid = Number(conn.row('SELECT max(rid) FROM nodes')?.[0] ?? 0);
    const end = Math.min(nodes, start + BATCH);
    for (let from = start; from < end; from += RAW_ROWS) {
      const row: SqlValue[] = [rid + 1, 'Raw', '["Raw"]'];
      const text: SqlValue[] = [rid + 1];
      for (let i = from; i < from + RAW_ROWS; i++) {
        const p = props(i);
        row.push(`raw:${i}`, JSON.stringify(p));
        text.push([p.title, p.slug, ...p.tags, p.body].join('\n'));
      }
      conn.run(nodeSql, row);
      conn.run(textSql, text);
      rid += RAW_ROWS;
    }
    conn.exec('COMMIT');
  }
  const rate = nodes / ((performance.now() - started) / 1000);
  conn.close();
  return rate;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

/** Times `reads` calls one by one (after a warm-up) and returns the median and p99 in µs. */
async function measureReads(read: (id: string) => unknown, nodes: number, reads: number) {
  const ids = Array.from({ length: reads }, (_, i) => `item:${(i * 7919) % nodes}`);
  for (let i = 0; i < Math.min(reads, 20_000); i++) await read(ids[i] as string);
  const times = new Float64Array(reads);
  for (let i = 0; i < reads; i++) {
    const t0 = process.hrtime.bigint();
    const node = await read(ids[i] as string);
    times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    if (node === null || node === undefined) throw new Error(`missing ${ids[i]}`);
  }
  times.sort();
  return { median: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function benchEmbedded(): Promise<Result> {
  const busy = isBusy();
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-bench-'));
  const engine = createEmbeddedEngine({ dataDir });
  await engine.init();
  try {
    // Warm the JIT on a throw-away graph, so the measured run is steady-state code.
    const warmup = await engine.createGraph('warmup');
    await measureInserts(warmup, Math.max(2000, Math.floor(NODES / 10)));
    await measureSingleInserts(warmup, Math.max(2000, Math.floor(SINGLE_NODES / 10)));
    const graph = await engine.createGraph('bench');
    const inserts = await measureInserts(graph, NODES);
    const single = await measureSingleInserts(await engine.createGraph('single'), SINGLE_NODES);
    const port = await measureReads((id) => graph.getNode(id), NODES, READS);
    const floor = await engine.createGraph('floor');
    const rawInsertsPerSec = measureRawInserts(join(dataDir, 'graphs', `${floor.name}.db`), NODES);
    // The same primary-key read on a bare connection: no port, no JSON parsing.
    const raw = new SqlConnection(join(dataDir, 'graphs', 'bench.db'));
    const rawReads = await measureReads(
      (id) => raw.row('SELECT id, labels, props FROM nodes WHERE id = ?', [id]),
      NODES,
      READS,
    );
    raw.close();
    return {
      engine: `embedded (libSQL)${busy ? ' (busy machine)' : ''}`,
      nodes: NODES,
      insertsPerSec: inserts.wall,
      insertsPerCpuSec: inserts.cpu,
      singleInsertsPerSec: single.wall,
      singleInsertsPerCpuSec: single.cpu,
      singleNodes: SINGLE_NODES,
      rawInsertsPerSec,
      readMedianUs: port.median,
      readP99Us: port.p99,
      rawMedianUs: rawReads.median,
      reads: READS,
      measuredAt: stamp(),
    };
  } finally {
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchNeo4j(uri: string): Promise<Result> {
  const { createNeo4jEngine } = await import('../src/engines/neo4j/index');
  const engine: GraphEngine = createNeo4jEngine({
    uri,
    user: process.env.NEO4J_USER ?? 'neo4j',
    password: process.env.NEO4J_PASSWORD,
    edition: process.env.NEO4J_EDITION === 'enterprise' ? 'enterprise' : 'community',
    auditKey: Buffer.alloc(32, 1),
  });
  await engine.init();
  const nodes = Number(process.env.BENCH_NEO4J_NODES ?? 20_000);
  const singleNodes = Number(process.env.BENCH_NEO4J_SINGLE_NODES ?? 2_000);
  // 40,000 timed reads (after 20,000 warm-up ones): with fewer, C2 is still compiling the read
  // path while they are timed (5,000 gave a 6.6 ms median on a quiet machine, 40,000 0.43 ms).
  const reads = Number(process.env.BENCH_NEO4J_READS ?? 40_000);
  const name = `bench-${Date.now().toString(36)}`;
  try {
    const info = await neo4jServerInfo(uri);
    const clock = neo4jCpuClock(uri);
    const busy = isBusy();
    const loadBefore = loadNow();
    // A throw-away graph first warms the server's query plans and JIT (C2 compiles hot code
    // only after many calls), so the measured run is steady-state code on both sides.
    const warm = await engine.createGraph(`${name}-warmup`);
    await measureInserts(warm, Math.max(2000, Math.floor(nodes / 4)), 'warm');
    await measureReads(
      (id) => warm.getNode(id.replace('item:', 'warm:')),
      Math.max(2000, Math.floor(nodes / 4)),
      2000,
    );
    await engine.dropGraph(warm.name);
    const graph = await engine.createGraph(name);
    const cpu0 = await clock.now();
    const inserts = await measureInserts(graph, nodes);
    const cpu1 = await clock.now();
    const single = await measureSingleInserts(graph, singleNodes);
    const cpu2 = await clock.now();
    const port = await measureReads((id) => graph.getNode(id), nodes, reads);
    const cpu3 = await clock.now();
    await clock.close();
    const perOp = (from: number | null, to: number | null, count: number) =>
      from === null || to === null ? '–' : `${(((to - from) * 1000) / count).toFixed(0)} µs`;
    neo4jNotes.push(
      `Neo4j server this run${busy ? ' (busy machine: 1-minute load ≥ 1 before it started)' : ''}: ${info === null ? 'JVM settings not readable (dbms.queryJmx refused)' : `${info.vm}, JIT ${info.jit}, page cache ${info.pageCache}, JVM flags \`${info.jvm}\``}; load ${loadBefore} before the Neo4j run and ${loadNow()} after. Server CPU time (JMX ProcessCpuTime, all JVM threads) per node: bulk insert ${perOp(cpu0, cpu1, nodes)}, node by node ${perOp(cpu1, cpu2, singleNodes)}; per getNode ${perOp(cpu2, cpu3, reads + Math.min(reads, 20_000))} (the warm-up reads before the timed ones counted as reads).`,
    );
    return {
      engine: `neo4j (Bolt, Community${info === null ? '' : `, JIT ${info.jit}`})${busy ? ' (busy machine)' : ''}`,
      nodes,
      insertsPerSec: inserts.wall,
      // The work happens in the Neo4j server process, so the client's CPU time says little.
      insertsPerCpuSec: null,
      singleInsertsPerSec: single.wall,
      singleInsertsPerCpuSec: null,
      singleNodes,
      rawInsertsPerSec: null,
      readMedianUs: port.median,
      readP99Us: port.p99,
      rawMedianUs: null,
      reads,
      measuredAt: stamp(),
    };
  } finally {
    await engine.dropGraph(name).catch(() => false);
    await engine.close();
  }
}

function row(result: Result): string {
  const us = (n: number | null) => (n === null ? '–' : n.toFixed(1));
  const rate = (n: number | null) => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));
  return `| ${result.engine} | ${rate(result.insertsPerSec)} | ${rate(result.insertsPerCpuSec)} | ${rate(result.singleInsertsPerSec)} | ${rate(result.singleInsertsPerCpuSec)} | ${rate(result.rawInsertsPerSec)} | ${us(result.readMedianUs)} | ${us(result.readP99Us)} | ${us(result.rawMedianUs)} | ${result.nodes.toLocaleString('en-US')} nodes (${result.singleNodes.toLocaleString('en-US')} node by node), ${result.reads.toLocaleString('en-US')} reads, ${result.measuredAt} |`;
}

function writeSection(results: Result[], notes: string[]): void {
  const previous = readDocSection('engine');
  const rows = results.map(row);
  // Keep the last Neo4j figures when Neo4j was not reachable this run.
  if (!results.some((result) => result.engine.startsWith('neo4j'))) {
    const kept = previous.split('\n').find((line) => line.startsWith('| neo4j'));
    if (kept !== undefined) {
      rows.push(kept);
      notes.push('The Neo4j row is kept from the last run that reached a Neo4j server (see its date).');
    }
  }
  if (rows.some((line) => line.startsWith('| neo4j'))) {
    notes.push(
      'Neo4j ran from `tools/neo4j-harness` (Neo4j 5.26 Community in-process; JVM settings below, `BENCH_NEO4J=harness` starts it with the production profile) on the same two cores as the client, after a warm-up graph of a quarter of the sample. A `createNodes` batch is one transaction: the write lock (which also reads the unique rules and the last audit record) and one UNWIND statement that checks and writes the batch; every `getNode` is one auto-commit statement (one Bolt round trip, an index seek on `TNode(g, id)`); see packages/server/src/engines/neo4j/README.md.',
      ...neo4jNotes,
    );
  }
  writeDocSection('engine', [
    '## Graph engine',
    '',
    `Measured by \`pnpm --filter @trelliscms/server bench\` (\`packages/server/bench/engine.bench.ts\`), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${loadAtStart} at the start.`,
    `Goals: bulk insert ≥ ${GOAL_INSERTS.toLocaleString('en-US')} nodes/s in batched transactions (${BATCH} nodes per transaction, each node with a label, JSON props and its full-text entry); point read median < ${GOAL_READ_US} µs.`,
    '',
    '| Engine | Bulk insert, createNodes (nodes/s) | Bulk insert (nodes per CPU-s) | Node by node, createNode (nodes/s) | Node by node (nodes per CPU-s) | Raw SQL insert (nodes/s) | getNode median (µs) | getNode p99 (µs) | Raw SQL read median (µs) | Sample |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    ...notes,
    '',
  ]);
}

const loadAtStart = loadavg()
  .map((n) => n.toFixed(1))
  .join(' / ');
const results: Result[] = [];
const neo4jNotes: string[] = [];
const notes = [
  "Bulk insert: one `createNodes` call of 1000 nodes per transaction (the embedded engine writes them with multi-row `INSERT`s of up to 500 rows binding the shared labels once, the full-text rows likewise; FTS5 `automerge` 16); node by node: 1000 awaited `createNode` calls inside one `graph.transaction`. `getNode` is timed per awaited call through the port (one promise, one cached prepared statement, two `JSON.parse`); the raw read is the same statement on a bare libsql connection. The raw insert runs the statements the engine issues for a batch without validation or the port, so the gap between the two is the engine's own cost. Nodes per CPU-second divide by this process's CPU time, which other work on the machine disturbs less than wall-clock time.",
];
const embedded = await benchEmbedded();
results.push(embedded);
console.log(row(embedded));
const neo4jUri = process.env.NEO4J_URI;
if (neo4jUri) {
  try {
    const neo4j = await benchNeo4j(neo4jUri);
    results.push(neo4j);
    console.log(row(neo4j));
  } catch (error) {
    console.error(`Neo4j benchmark failed: ${(error as Error).message}`);
    notes.push(
      `Neo4j at ${neo4jUri.replace(/\/\/[^@]*@/, '//')} was not measured this run: ${(error as Error).message}`,
    );
  }
} else {
  notes.push('Neo4j is measured when `NEO4J_URI` is set (e.g. after `pnpm neo4j:start`).');
}
const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
notes.unshift(
  `A row measured while the 1-minute load average was 1 or more (other work on the ${cpus().length} cores) is marked *busy machine*; its figures are low by an unknown factor. Embedded goals this run: bulk insert ${verdict(embedded.insertsPerSec >= GOAL_INSERTS)} (${Math.round(embedded.insertsPerSec).toLocaleString('en-US')} nodes/s), point read ${verdict(embedded.readMedianUs < GOAL_READ_US)} (${embedded.readMedianUs.toFixed(1)} µs median).`,
);
writeSection(results, notes);
console.log(`Updated ${benchmarksDoc}`);
const ok = embedded.insertsPerSec >= GOAL_INSERTS && embedded.readMedianUs < GOAL_READ_US;
console.log(ok ? 'Embedded engine meets both goals.' : 'Embedded engine MISSES a goal.');
