/**
 * Content benchmark, through HTTP on loopback against the real app:
 * - import throughput: POST /api/import/json (records/s) and POST /api/import/edges (edges/s);
 * - read throughput: GET /api/content/{type}/{id} under autocannon (10 connections), next to a
 *   bare Fastify route serving the same bytes, in the same run.
 * Always on the embedded engine; also on Neo4j when NEO4J_URI is set. Writes the "Content"
 * section of docs/benchmarks.md (between the `bench:content` markers) and keeps the rest.
 *
 * Run: pnpm --filter @trelliscms/server bench
 * Env: BENCH_RECORDS (20000), BENCH_EDGES (50000), BENCH_READ_SECONDS (5), BENCH_NEO4J_RECORDS (5000)
 * Also runs import-sizes.ts (import against the raw libSQL floor by record size; the
 * `import-sizes` section): BENCH_SIZE_RECORDS (small and medium 20000, large 10000).
 * BENCH_IMPORT_SIZES_ONLY=1 runs only that part, on 2000 records per size unless
 * BENCH_SIZE_RECORDS says otherwise, and writes the doc only with BENCH_WRITE_DOC=1;
 * BENCH_SIZES=large (comma-separated) picks sizes.
 * BENCH_NEO4J_ONLY=1 (with NEO4J_URI) runs only the Neo4j import (BENCH_NEO4J_RECORDS records,
 * twice as many edges, after a warm-up run of a fifth) and prints its row; no doc is written.
 * With BENCH_READS_ONLY=1 as well it runs the Neo4j reads alone (BENCH_RECORDS, default 2000,
 * after a warm-up import and read run), BENCH_READ_ROUNDS times (default 1), and prints each row
 * with the serving process's and the Neo4j server's CPU time per uncached GET item:
 * `BENCH_ONLY=import BENCH_NEO4J_ONLY=1 BENCH_READS_ONLY=1 BENCH_NEO4J=harness pnpm --filter @trelliscms/server bench`.
 * BENCH_READS_ONLY=1 measures the reads only (after an import of BENCH_RECORDS, default 2000
 * here, and twice as many edges), skips import-sizes.ts, and writes the doc only with
 * BENCH_WRITE_DOC=1: `BENCH_ONLY=import BENCH_READS_ONLY=1 pnpm --filter @trelliscms/server bench`.
 * BENCH_CONNECTIONS (default 10): autocannon's connections for every read target; 1 measures
 * each request's own latency (on Neo4j, the Bolt round trips it waits for one after another).
 * On Neo4j the uncached read run also prints the driver's statements (count per text, requests
 * per statement, node reads per statement, the JVM's CPU per statement); BENCH_CPU_PROF=<file>
 * writes a V8 CPU profile of this process (the serving app) for that run; BENCH_IDLE_PROBE=1
 * first measures the JVM's CPU for 3 s with the app up and idle; BENCH_IMPORT_PROBE=1 prints the
 * statements of each Neo4j import (and BENCH_CPU_PROF profiles them).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { loadConfig } from '../src/config';
import { buildApp } from '../src/http/app';
import {
  benchApi as api,
  benchAppEnv,
  OWNER_KEY,
  placeEdges,
  placeType,
  placeRecord as record,
} from './bench-app';
import { benchmarksDoc, cpuTicks, readDocSection, stealBetween, writeDocSection } from './doc-section';
import { benchImportSizes, type SizeName, sizeRow, sizeSection } from './import-sizes';
import { isBusy, loadNow, neo4jCpuClock, neo4jServerInfo } from './neo4j-server';

const READS_ONLY = process.env.BENCH_READS_ONLY === '1';
const RECORDS = Number(process.env.BENCH_RECORDS ?? (READS_ONLY ? 2_000 : 20_000));
const EDGES = Number(process.env.BENCH_EDGES ?? (READS_ONLY ? RECORDS * 2 : 50_000));
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
const NEO4J_RECORDS = Number(process.env.BENCH_NEO4J_RECORDS ?? 5_000);
const GOAL_RECORDS = 20_000;
const GOAL_EDGES = 100_000;
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);

interface Result {
  engine: string;
  records: number;
  recordsPerSec: number;
  edges: number;
  edgesPerSec: number;
  /** CPU time of this process (server and client) during each import. */
  recordsCpuMs: number;
  edgesCpuMs: number;
  readRps: number | null;
  bareRps: number | null;
  readP99Ms: number | null;
  /** GET /api/health of the same app (public, no engine call): the ceiling the app's global hooks leave. */
  healthRps: number | null;
  /** CPU time of the serving process per request: GET item, and the bare route. */
  readCpuUs: number | null;
  bareCpuUs: number | null;
  /** The same for the list of 50 and GET /api/health. */
  listCpuUs: number | null;
  healthCpuUs: number | null;
  /** GET item with CONTENT_READ_CACHE_MS=0 (every request reads the engine), on a second app over the same data. */
  uncachedRps: number | null;
  uncachedP99Ms: number | null;
  /** CPU time per uncached GET item: of the serving process, and (Neo4j) of the server (JMX ProcessCpuTime). */
  uncachedCpuUs: number | null;
  uncachedServerCpuUs: number | null;
  /** GET a content list of 50 items with withMeta (the read cache on, as in production). */
  listRps: number | null;
  /** Load averages before and after this engine's run, and whether the machine was busy when it started. */
  load: string;
  busy: boolean;
  /** Neo4j only: the server's CPU time (JMX ProcessCpuTime) during each import. */
  serverRecordsCpuMs: number | null;
  serverEdgesCpuMs: number | null;
}

/** Requests per second and p99 latency of `url` under autocannon (BENCH_CONNECTIONS, default 10), in a child process. */
async function autocannon(
  url: string,
  headers: Record<string, string>,
  seconds = READ_SECONDS,
): Promise<{ rps: number; p99: number; cpuUsPerRequest: number; requests: number }> {
  const cpu = process.cpuUsage();
  const args = [autocannonBin, '-c', process.env.BENCH_CONNECTIONS ?? '10', '-d', String(seconds), '-j'];
  for (const [key, value] of Object.entries(headers)) args.push('-H', `${key}=${value}`);
  args.push(url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const used = process.cpuUsage(cpu);
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`autocannon saw ${result.non2xx} non-2xx answers and ${result.errors} errors on ${url}`);
  }
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    // This process serves both routes; autocannon runs in its own.
    cpuUsPerRequest: (used.user + used.system) / Math.max(1, result.requests.total),
    requests: result.requests.total,
  };
}

/**
 * Counts the driver's statements while the uncached reads run (auto-commit `Session.run` and
 * `Transaction.run`, and the node reads each coalesced statement carries), and with
 * BENCH_CPU_PROF=<file> writes a V8 CPU profile of this process (the serving app) for that
 * run (open it in Chrome's DevTools or speedscope).
 */
type ProbeHandle = Awaited<ReturnType<typeof statementProbe>>;

async function statementProbe(): Promise<{
  stop(): Promise<{
    statements: number;
    transactions: number;
    nodeReads: number;
    texts: Map<string, number>;
  }>;
}> {
  const { Session, Transaction } = await import('neo4j-driver');
  const counts = { statements: 0, transactions: 0, nodeReads: 0, texts: new Map<string, number>() };
  const note = (query: unknown) => {
    const text = String(typeof query === 'string' ? query : (query as { text?: string })?.text)
      .replace(/\s+/g, ' ')
      .slice(0, 90);
    counts.texts.set(text, (counts.texts.get(text) ?? 0) + 1);
  };
  const sessionRun = Session.prototype.run;
  const txRun = Transaction.prototype.run;
  Session.prototype.run = function (
    this: InstanceType<typeof Session>,
    ...args: Parameters<typeof sessionRun>
  ) {
    counts.statements += 1;
    note(args[0]);
    const params = args[1] as { nodes?: unknown[] } | undefined;
    counts.nodeReads += Array.isArray(params?.nodes) ? params.nodes.length : 0;
    return sessionRun.apply(this, args);
  } as typeof sessionRun;
  Transaction.prototype.run = function (
    this: InstanceType<typeof Transaction>,
    ...args: Parameters<typeof txRun>
  ) {
    counts.transactions += 1;
    note(args[0]);
    return txRun.apply(this, args);
  } as typeof txRun;
  const profileTo = process.env.BENCH_CPU_PROF;
  const inspector = profileTo ? new (await import('node:inspector')).Session() : null;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      inspector?.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
    );
  if (inspector) {
    inspector.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
  }
  return {
    async stop() {
      Session.prototype.run = sessionRun;
      Transaction.prototype.run = txRun;
      if (inspector && profileTo) {
        const { profile } = (await post('Profiler.stop')) as { profile: unknown };
        const { writeFileSync } = await import('node:fs');
        writeFileSync(profileTo, JSON.stringify(profile));
        inspector.disconnect();
        console.error(`CPU profile: ${profileTo}`);
      }
      return counts;
    },
  };
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** The CPU time of the imports, which other work on a shared machine disturbs less than wall-clock time. */
function cpuNote(result: Result): string {
  const perCpuSecond = (count: number, ms: number) => rate((count / ms) * 1000);
  const reads =
    result.readCpuUs !== null && result.bareCpuUs !== null
      ? ` Serving CPU time per request on ${result.engine}: GET item ${result.readCpuUs.toFixed(1)} µs${result.uncachedCpuUs === null ? '' : `, uncached ${result.uncachedCpuUs.toFixed(1)} µs`}${result.listCpuUs === null ? '' : `, list of 50 ${result.listCpuUs.toFixed(1)} µs`}${result.healthCpuUs === null ? '' : `, GET /api/health ${result.healthCpuUs.toFixed(1)} µs`}, the bare route ${result.bareCpuUs.toFixed(1)} µs.`
      : '';
  const server =
    result.serverRecordsCpuMs !== null && result.serverEdgesCpuMs !== null
      ? ` The Neo4j server's CPU time (JMX ProcessCpuTime, every JVM thread): records ${Math.round(result.serverRecordsCpuMs).toLocaleString('en-US')} ms (${((result.serverRecordsCpuMs * 1000) / result.records).toFixed(0)} µs per record), edges ${Math.round(result.serverEdgesCpuMs).toLocaleString('en-US')} ms (${((result.serverEdgesCpuMs * 1000) / result.edges).toFixed(0)} µs per edge).`
      : '';
  return `Import CPU time on ${result.engine} (this process: the server and the client sending the request): records ${Math.round(result.recordsCpuMs).toLocaleString('en-US')} ms (${perCpuSecond(result.records, result.recordsCpuMs)} records per CPU-second), edges ${Math.round(result.edgesCpuMs).toLocaleString('en-US')} ms (${perCpuSecond(result.edges, result.edgesCpuMs)} edges per CPU-second).${server}${reads}`;
}

async function benchEngine(engine: 'embedded' | 'neo4j', records: number, edges: number, withReads: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-content-bench-'));
  const busy = isBusy();
  const loadBefore = loadNow();
  const configWith = (readCacheMs?: number) =>
    loadConfig({
      ...(engine === 'neo4j' ? { ...process.env, CMS_ENGINE: 'neo4j' } : {}),
      ...benchAppEnv(
        dataDir,
        readCacheMs === undefined ? {} : { CONTENT_READ_CACHE_MS: String(readCacheMs) },
      ),
    });
  const config = configWith();
  let app = await buildApp({ config, logger: false });
  const bare = Fastify({ logger: false });
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const slug = `bench-${Date.now().toString(36)}`;
    const site = (
      await api(base, null, 'POST', '/api/sites', { name: 'Bench', slug, starterKit: 'none' })
    ).json().id as string;
    await api(base, site, 'POST', '/api/types', placeType);
    console.error(`[${engine}] site ${site} ready; importing ${records} records`);

    const payload = JSON.stringify({
      typeName: 'place',
      records: Array.from({ length: records }, (_, i) => record(i)),
      batchSize: 500,
    });
    const clock = engine === 'neo4j' ? neo4jCpuClock(process.env.NEO4J_URI as string) : null;
    const serverCpu0 = (await clock?.now()) ?? null;
    // BENCH_IMPORT_PROBE=1: count the statements of each import (and BENCH_CPU_PROF profiles it).
    const importProbe = engine === 'neo4j' && process.env.BENCH_IMPORT_PROBE === '1';
    const printCounts = (what: string, counted: Awaited<ReturnType<ProbeHandle['stop']>>) =>
      console.error(
        `${[...counted.texts].map(([text, n]) => `  ${n} × ${text}`).join('\n')}\n[${engine}] ${what}: ${counted.statements} auto-commit statements, ${counted.transactions} transaction statements`,
      );
    let recordsProbe = importProbe ? await statementProbe() : null;
    let started = performance.now();
    let cpu = process.cpuUsage();
    const imported = await fetch(`${base}/api/import/json`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OWNER_KEY}`,
        'x-site-id': site,
        'content-type': 'application/json',
      },
      body: payload,
    });
    const importBody = (await imported.json()) as { created: number; failed: number };
    const importMs = performance.now() - started;
    const recordsCpuMs = cpuMs(process.cpuUsage(cpu));
    if (recordsProbe !== null) printCounts(`import of ${records} records`, await recordsProbe.stop());
    if (importBody.created !== records) throw new Error(`import created ${importBody.created} of ${records}`);
    console.error(`[${engine}] records imported in ${Math.round(importMs)} ms; importing ${edges} edges`);

    const serverCpu1 = (await clock?.now()) ?? null;
    const edgeList = placeEdges(edges, records);
    const edgePayload = JSON.stringify({ edges: edgeList, batchSize: 2000 });
    recordsProbe = importProbe ? await statementProbe() : null;
    started = performance.now();
    cpu = process.cpuUsage();
    const merged = await fetch(`${base}/api/import/edges`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OWNER_KEY}`,
        'x-site-id': site,
        'content-type': 'application/json',
      },
      body: edgePayload,
    });
    const edgeBody = (await merged.json()) as { merged: number; failed: number; mismatch: number };
    const edgesMs = performance.now() - started;
    const edgesCpuMs = cpuMs(process.cpuUsage(cpu));
    if (recordsProbe !== null) printCounts(`import of ${edges} edges`, await recordsProbe.stop());
    const serverCpu2 = (await clock?.now()) ?? null;
    await clock?.close();
    const between = (from: number | null, to: number | null) =>
      from === null || to === null ? null : to - from;
    if (edgeBody.failed > 0 || edgeBody.mismatch > 0)
      throw new Error(`edge import: ${JSON.stringify(edgeBody)}`);

    let readRps: number | null = null;
    let bareRps: number | null = null;
    let readP99Ms: number | null = null;
    let healthRps: number | null = null;
    let readCpuUs: number | null = null;
    let bareCpuUs: number | null = null;
    let listCpuUs: number | null = null;
    let healthCpuUs: number | null = null;
    let uncachedRps: number | null = null;
    let uncachedP99Ms: number | null = null;
    let uncachedCpuUs: number | null = null;
    let uncachedServerCpuUs: number | null = null;
    let listRps: number | null = null;
    console.error(`[${engine}] edges imported in ${Math.round(edgesMs)} ms`);
    if (withReads) {
      const path = '/api/content/place/place:place-42';
      const listPath = '/api/content/place?limit=50&withMeta=true';
      const sample = await api(base, site, 'GET', path);
      const bytes = sample.text;
      bare.get('/bare', async (_request, reply) => reply.type('application/json').send(bytes));
      const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 });
      const readHeaders = { authorization: `Bearer ${OWNER_KEY}`, 'x-site-id': site };
      // A discarded warm-up run of each target first, so none is measured while the JIT or the
      // collector is still busy with what ran before it (the import, just above).
      for (const [url, headers] of [
        [`${base}${path}`, readHeaders],
        [`${bareBase}/bare`, {}],
        [`${base}/api/health`, {}],
        [`${base}${listPath}`, readHeaders],
      ] as const) {
        await autocannon(url, headers, WARMUP_SECONDS);
      }
      const read = await autocannon(`${base}${path}`, readHeaders);
      const plain = await autocannon(`${bareBase}/bare`, {});
      const health = await autocannon(`${base}/api/health`, {});
      const list = await autocannon(`${base}${listPath}`, readHeaders);
      healthRps = health.rps;
      healthCpuUs = health.cpuUsPerRequest;
      listRps = list.rps;
      listCpuUs = list.cpuUsPerRequest;
      readRps = read.rps;
      readP99Ms = read.p99;
      bareRps = plain.rps;
      readCpuUs = read.cpuUsPerRequest;
      bareCpuUs = plain.cpuUsPerRequest;
      // The same read without the item read cache: a second app over the same data, so every
      // request reads the item and its edges from the engine.
      await app.close();
      app = await buildApp({ config: configWith(0), logger: false });
      const uncachedBase = await app.listen({ host: '127.0.0.1', port: 0 });
      await autocannon(`${uncachedBase}${path}`, readHeaders, WARMUP_SECONDS);
      const readClock = engine === 'neo4j' ? neo4jCpuClock(process.env.NEO4J_URI as string) : null;
      if (readClock !== null && process.env.BENCH_IDLE_PROBE === '1') {
        // The Neo4j server's CPU while this app is up and no request comes (its background work).
        const idle0 = await readClock.now();
        await new Promise((resolve) => setTimeout(resolve, 3000));
        const idle1 = await readClock.now();
        if (idle0 !== null && idle1 !== null)
          console.error(
            `[${engine}] Neo4j CPU with the app idle: ${((idle1 - idle0) / 3).toFixed(0)} ms per s`,
          );
      }
      const readCpu0 = (await readClock?.now()) ?? null;
      const probe = engine === 'neo4j' ? await statementProbe() : null;
      const uncached = await autocannon(`${uncachedBase}${path}`, readHeaders);
      const counted = (await probe?.stop()) ?? null;
      const readCpu1 = (await readClock?.now()) ?? null;
      await readClock?.close();
      uncachedRps = uncached.rps;
      uncachedP99Ms = uncached.p99;
      uncachedCpuUs = uncached.cpuUsPerRequest;
      const serverMs = between(readCpu0, readCpu1);
      uncachedServerCpuUs = serverMs === null ? null : (serverMs * 1000) / Math.max(1, uncached.requests);
      if (counted !== null) {
        const per = (n: number) => (n / Math.max(1, uncached.requests)).toFixed(3);
        console.error(
          `${[...counted.texts].map(([text, n]) => `  ${n} × ${text}`).join('\n')}\n[${engine}] uncached run: ${uncached.requests} requests, ${counted.statements} auto-commit statements (${per(counted.statements)} per request; ${(uncached.requests / Math.max(1, counted.statements)).toFixed(2)} requests per statement), ${counted.transactions} transaction statements, node reads per statement ${(counted.nodeReads / Math.max(1, counted.statements)).toFixed(2)}${serverMs === null ? '' : `, Neo4j CPU per statement ${((serverMs * 1000) / Math.max(1, counted.statements)).toFixed(0)} µs`}`,
        );
      }
    }
    return {
      engine: engine === 'embedded' ? 'embedded (libSQL)' : `neo4j (Bolt, Community${neo4jJit})`,
      records,
      recordsPerSec: (records / importMs) * 1000,
      edges,
      edgesPerSec: (edges / edgesMs) * 1000,
      recordsCpuMs,
      edgesCpuMs,
      readRps,
      bareRps,
      readP99Ms,
      healthRps,
      readCpuUs,
      bareCpuUs,
      listCpuUs,
      healthCpuUs,
      uncachedRps,
      uncachedP99Ms,
      uncachedCpuUs,
      uncachedServerCpuUs,
      listRps,
      load: `${loadBefore} → ${loadNow()}`,
      busy,
      serverRecordsCpuMs: between(serverCpu0, serverCpu1),
      serverEdgesCpuMs: between(serverCpu1, serverCpu2),
    } satisfies Result;
  } finally {
    await bare.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let neo4jJit = '';

const rate = (n: number | null) => (n === null ? '–' : Math.round(n).toLocaleString('en-US'));

function row(result: Result): string {
  const ratio =
    result.readRps !== null && result.bareRps
      ? `${Math.round((result.readRps / result.bareRps) * 100)} %`
      : '–';
  const uncachedRatio =
    result.uncachedRps !== null && result.bareRps
      ? `${Math.round((result.uncachedRps / result.bareRps) * 100)} %`
      : '–';
  const listRatio =
    result.listRps !== null && result.bareRps
      ? `${Math.round((result.listRps / result.bareRps) * 100)} %`
      : '–';
  return `| ${result.engine}${result.busy ? ' (busy machine)' : ''} | ${rate(result.recordsPerSec)} | ${rate(result.edgesPerSec)} | ${rate(result.readRps)} | ${rate(result.bareRps)} | ${ratio} | ${result.readP99Ms ?? '–'} | ${rate(result.uncachedRps)} | ${uncachedRatio} | ${result.uncachedP99Ms ?? '–'} | ${rate(result.healthRps)} | ${rate(result.listRps)} | ${listRatio} | ${result.records.toLocaleString('en-US')} records, ${result.edges.toLocaleString('en-US')} edges; load ${result.load} |`;
}

function writeSection(results: Result[], notes: string[]): void {
  const previous = readDocSection('content');
  const rows = results.map(row);
  if (!results.some((result) => result.engine.startsWith('neo4j'))) {
    const kept = previous.split('\n').find((line) => line.startsWith('| neo4j'));
    // A row from before the health column, or before the uncached columns: dashes in their place.
    const cells = kept?.split('|') ?? [];
    if (kept !== undefined && cells.length === 10) cells.splice(8, 0, ' – ');
    if (kept !== undefined && cells.length === 11) cells.splice(8, 0, ' – ', ' – ', ' – ');
    // ...or before the list columns.
    if (kept !== undefined && cells.length === 14) cells.splice(12, 0, ' – ', ' – ');
    if (kept !== undefined) rows.push(cells.join('|'));
  }
  writeDocSection('content', [
    '## Content import and reads (HTTP)',
    '',
    `Measured by \`pnpm --filter @trelliscms/server bench\` (\`packages/server/bench/import.bench.ts\`), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, load average ${loadAtStart} at the start, CPU time taken by the hypervisor (steal) during the run ${stealBetween(ticksAtStart, cpuTicks())}.`,
    `Through HTTP on loopback against the real app (auth, site context, zod validation, audit): one \`POST /api/import/json\` of all records (batchSize 500; each record validated, with its content hash; per batch one transaction: one read of the batch's ids, one \`createNodes\` of its items, its version nodes stored lazily, one audit entry), then one \`POST /api/import/edges\` (batchSize 2000; per batch one transaction with one \`mergeEdges\`, merge semantics). Reads: \`GET /api/content/{type}/{id}\` under autocannon (10 connections, ${READ_SECONDS} s after a ${WARMUP_SECONDS} s warm-up of each route, a separate process) next to a bare Fastify route serving the same bytes, in the same run; both with logging off, the API route with every hook it has in production (load shedding, rate limit, API-key authentication, site context, permission check, params validation).`,
    `Goals: ≥ ${GOAL_RECORDS.toLocaleString('en-US')} records/s and ≥ ${GOAL_EDGES.toLocaleString('en-US')} edges/s on the embedded engine (the spec's reference service: about 100 records/s); reads ≥ half of the bare route's requests/s, also uncached; a list of 50 items with \`withMeta\` (\`GET /api/content/{type}?limit=50&withMeta=true\`) ≥ 25 %.`,
    '',
    '| Engine | Import (records/s) | Edge import (edges/s) | GET item (req/s) | Bare route, same bytes (req/s) | GET / bare | GET p99 (ms) | GET item, CONTENT_READ_CACHE_MS=0 (req/s) | uncached / bare | uncached p99 (ms) | GET /api/health, same app (req/s) | GET list of 50, withMeta (req/s) | list / bare | Sample |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    ...notes,
    '',
  ]);
}

/** Runs import-sizes.ts; its doc section keeps what follows `### Profile and changes` (written by hand). */
async function runSizes(sizesOnly: boolean): Promise<string[] | null> {
  const given = process.env.BENCH_SIZE_RECORDS ? Number(process.env.BENCH_SIZE_RECORDS) : null;
  const count = (full: number) => given ?? (sizesOnly ? 2_000 : full);
  const only = process.env.BENCH_SIZES?.split(',').map((name) => name.trim() as SizeName);
  const run = await benchImportSizes({
    records: { small: count(20_000), medium: count(20_000), large: count(10_000) },
    edges: sizesOnly ? count(20_000) * 2 : EDGES,
    only,
  });
  for (const result of run.results) console.log(sizeRow(result));
  console.log(
    `edges/s: ${run.edgesPerSec === null ? '–' : rate(run.edgesPerSec)} (edges table's own floor ${run.edgeFloorPerSec === null ? '–' : rate(run.edgeFloorPerSec)} rows/s, CPU floor / import ${run.edgeCpuRatio === null ? '–' : `${Math.round(run.edgeCpuRatio * 100)} %`}); load ${run.loads.join('; ')}`,
  );
  const previous = readDocSection('import-sizes');
  const at = previous.indexOf('### Profile and changes');
  const kept = at >= 0 ? ['', ...previous.slice(at).trimEnd().split('\n')] : [];
  return sizeSection(run, kept);
}

if (process.env.BENCH_IMPORT_SIZES_ONLY === '1') {
  const lines = await runSizes(true);
  if (lines && process.env.BENCH_WRITE_DOC === '1') {
    writeDocSection('import-sizes', lines);
    console.log(`Updated ${benchmarksDoc}`);
  }
  process.exit(0);
}

if (process.env.BENCH_NEO4J_ONLY === '1' && READS_ONLY) {
  // The Neo4j reads alone, for before/after comparisons of the engine's read path: a discarded
  // warm-up (import and reads), then BENCH_READ_ROUNDS measured runs. Prints; writes no doc.
  if (!process.env.NEO4J_URI) throw new Error('BENCH_NEO4J_ONLY=1 needs NEO4J_URI');
  const info = await neo4jServerInfo(process.env.NEO4J_URI);
  if (info !== null) neo4jJit = `, JIT ${info.jit}`;
  await benchEngine(
    'neo4j',
    Math.max(500, Math.floor(RECORDS / 4)),
    Math.max(1000, Math.floor(EDGES / 4)),
    true,
  );
  for (let round = 0; round < Number(process.env.BENCH_READ_ROUNDS ?? 1); round += 1) {
    const neo4j = await benchEngine('neo4j', RECORDS, EDGES, true);
    console.log(row(neo4j));
    const perRequest = (us: number | null) => (us === null ? '–' : `${us.toFixed(0)} µs`);
    console.log(
      `uncached GET item: ${rate(neo4j.uncachedRps)} req/s (${neo4j.bareRps ? Math.round(((neo4j.uncachedRps ?? 0) / neo4j.bareRps) * 100) : '–'} % of bare ${rate(neo4j.bareRps)}), CPU per request: this process ${perRequest(neo4j.uncachedCpuUs)}, Neo4j server ${perRequest(neo4j.uncachedServerCpuUs)}; load ${neo4j.load}`,
    );
  }
  process.exit(0);
}

if (process.env.BENCH_NEO4J_ONLY === '1') {
  // The Neo4j import alone (a discarded warm-up run of a fifth, then the measured one; no reads,
  // no embedded run), for before/after comparisons of the Neo4j engine. Prints; writes no doc.
  if (!process.env.NEO4J_URI) throw new Error('BENCH_NEO4J_ONLY=1 needs NEO4J_URI');
  const info = await neo4jServerInfo(process.env.NEO4J_URI);
  if (info !== null) neo4jJit = `, JIT ${info.jit}`;
  const warm = Math.max(500, Math.floor(NEO4J_RECORDS / 5));
  await benchEngine('neo4j', warm, warm * 2, false);
  const neo4j = await benchEngine('neo4j', NEO4J_RECORDS, NEO4J_RECORDS * 2, false);
  console.log(row(neo4j));
  console.log(cpuNote(neo4j));
  process.exit(0);
}

const ticksAtStart = cpuTicks();
const loadAtStart = loadavg()
  .map((n) => n.toFixed(1))
  .join(' / ');
const results: Result[] = [];
const notes: string[] = [
  '`GET /api/health` (public, no engine call) runs every global hook of the app (request id, logging, load shedding, rate limit, auth skip) and nothing else: it is the ceiling any API route can reach, so the gap between it and the bare route is the app-wide per-request cost, and the gap between it and GET item is the content route itself (auth, site context, type and item reads, relationships). Absolute figures move with whatever else runs on the machine (the load average is in the header); the ratios in one run are the comparable part.',
  'GET item asks for one item over and over, so it measures the item read cache (`CONTENT_READ_CACHE_MS`, default 1 s: the engine is read once a second, and on any write to the site): what a hot item costs. An uncached read adds an item read and an edge read on the engine to every request: the `CONTENT_READ_CACHE_MS=0` columns measure that, on a second app over the same data right after the cached run (goal on Neo4j: ≥ 40 % of the bare route). The list column asks for `GET /api/content/place?limit=50&withMeta=true` over and over: with the read cache on (default), lists are kept by their query like items, so it measures a hot list; the first read of a list (or one after a write) reads the page and its total from the engine. A row measured while the 1-minute load average was 1 or more (other work on the 2 cores) is marked *busy machine*; its figures are low by an unknown factor.',
];
const embedded = await benchEngine('embedded', RECORDS, EDGES, true);
results.push(embedded);
notes.push(cpuNote(embedded));
console.log(row(embedded));
console.log(cpuNote(embedded));
if (process.env.NEO4J_URI) {
  const info = await neo4jServerInfo(process.env.NEO4J_URI);
  if (info !== null) {
    neo4jJit = `, JIT ${info.jit}`;
    notes.push(
      `Neo4j server this run: ${info.vm}, JIT ${info.jit}, page cache ${info.pageCache}, JVM flags \`${info.jvm}\` (asked of the server: \`dbms.queryJmx\`, \`SHOW SETTINGS\`). \`BENCH_NEO4J=harness\` starts tools/neo4j-harness with its production profile for the run. A discarded run of a fifth of the sample (import only) warms the server first.`,
    );
  }
  try {
    // A discarded smaller run first: a freshly started JVM compiles hot code (C2) only after
    // many calls, and the embedded run before this one did not exercise the server.
    await benchEngine(
      'neo4j',
      Math.max(500, Math.floor(NEO4J_RECORDS / 5)),
      Math.max(1000, Math.floor(NEO4J_RECORDS / 5) * 2),
      false,
    );
    const neo4j = await benchEngine('neo4j', NEO4J_RECORDS, NEO4J_RECORDS * 2, true);
    results.push(neo4j);
    notes.push(cpuNote(neo4j));
    console.log(row(neo4j));
  } catch (error) {
    console.error(`Neo4j content benchmark failed: ${(error as Error).message}`);
    notes.push(`Neo4j was not measured this run: ${(error as Error).message}`);
  }
} else {
  notes.push('Neo4j is measured when `NEO4J_URI` is set (e.g. after `pnpm neo4j:start`).');
}
if (READS_ONLY) {
  if (process.env.BENCH_WRITE_DOC === '1') {
    writeSection(results, notes);
    console.log(`Updated ${benchmarksDoc}`);
  }
} else {
  const sizeLines = await runSizes(false);
  writeSection(results, notes);
  if (sizeLines) writeDocSection('import-sizes', sizeLines);
  console.log(`Updated ${benchmarksDoc}`);
}
