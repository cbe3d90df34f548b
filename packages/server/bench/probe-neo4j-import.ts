/**
 * Probe of the HTTP import on Neo4j (issue 17): the bench's `place` records through
 * `POST /api/import/json` and `POST /api/import/edges` against the real app on NEO4J_URI, after a
 * warm-up import, with every Bolt statement tallied (count, rows, the server's own time:
 * resultAvailableAfter + resultConsumedAfter) and the server's process CPU around each import.
 * Not part of `pnpm bench`.
 *
 * BENCH_APP_SRC=<dir> runs the app of another copy of src/ (placed inside this package).
 * Run: NEO4J_URI=bolt://… N=5000 ROUNDS=1 npx tsx --tsconfig bench/tsconfig.json bench/probe-neo4j-import.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import neo4j from 'neo4j-driver';
import { benchApi, benchAppEnv, placeEdges, placeRecord, placeType } from './bench-app';
import { neo4jCpuClock } from './neo4j-server';

// BENCH_APP_SRC=<dir>: the app from another copy of src/ (inside this package, for an A/B).
const src = resolve(process.env.BENCH_APP_SRC ?? new URL('../src', import.meta.url).pathname);
const { loadConfig } = (await import(`${src}/config.ts`)) as typeof import('../src/config');
const { buildApp } = (await import(`${src}/http/app.ts`)) as typeof import('../src/http/app');

const N = Number(process.env.N ?? 5000);
const WARM = Number(process.env.WARM ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const TALLY = process.env.TALLY !== '0';

interface Tally {
  count: number;
  rows: number;
  serverMs: number;
}
const tally = new Map<string, Tally>();
let tallyOn = false;
function record(
  query: string,
  result: { records: unknown[]; summary: { resultAvailableAfter: unknown; resultConsumedAfter: unknown } },
) {
  if (!tallyOn) return;
  const key = query.replace(/\s+/g, ' ').slice(0, 110);
  const t = tally.get(key) ?? { count: 0, rows: 0, serverMs: 0 };
  t.count += 1;
  t.rows += result.records.length;
  t.serverMs += Number(result.summary.resultAvailableAfter) + Number(result.summary.resultConsumedAfter);
  tally.set(key, t);
}
if (TALLY) {
  for (const cls of [neo4j.Session, neo4j.Transaction] as unknown as Array<{
    prototype: { run: (...a: unknown[]) => unknown };
  }>) {
    const original = cls.prototype.run;
    cls.prototype.run = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args) as PromiseLike<never>;
      const query = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text);
      result.then(
        (r) => record(query, r),
        () => {},
      );
      return result;
    };
  }
}

async function api(base: string, site: string | null, path: string, body: unknown) {
  return (await benchApi(base, site, 'POST', path, body)).json();
}

const dataDir = mkdtempSync(join(tmpdir(), 'trellis-probe-'));
const config = loadConfig({ ...process.env, ...benchAppEnv(dataDir, { CMS_ENGINE: 'neo4j' }) });
const app = await buildApp({ config, logger: false });
const clock = neo4jCpuClock(process.env.NEO4J_URI as string);
try {
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const importSite = async (n: number, measured: boolean) => {
    const slug = `probe-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const site = (await api(base, null, '/api/sites', { name: 'Probe', slug, starterKit: 'none' }))
      .id as string;
    await api(base, site, '/api/types', placeType);
    const records = Array.from({ length: n }, (_, i) => placeRecord(i));
    const edges = placeEdges(n * 2, n);
    tallyOn = measured;
    const s0 = await clock.now();
    let cpu = process.cpuUsage();
    let t = performance.now();
    const a = await api(base, site, '/api/import/json', { typeName: 'place', records, batchSize: 500 });
    const recMs = performance.now() - t;
    const recCpu = process.cpuUsage(cpu);
    const s1 = await clock.now();
    if (a.created !== n) throw new Error(JSON.stringify(a).slice(0, 300));
    cpu = process.cpuUsage();
    t = performance.now();
    const b = await api(base, site, '/api/import/edges', { edges, batchSize: 2000 });
    const edgeMs = performance.now() - t;
    const edgeCpu = process.cpuUsage(cpu);
    const s2 = await clock.now();
    tallyOn = false;
    if (b.failed > 0) throw new Error(JSON.stringify(b).slice(0, 300));
    if (!measured) return;
    const us = (c: NodeJS.CpuUsage) => c.user + c.system;
    console.log(
      `load ${loadavg()[0]!.toFixed(1)} | records ${n}: ${Math.round((n / recMs) * 1000)}/s, client ${Math.round(us(recCpu) / n)} µs/rec, server ${Math.round(((s1! - s0!) * 1000) / n)} µs/rec | edges ${2 * n}: ${Math.round((2 * n * 1000) / edgeMs)}/s, client ${Math.round(us(edgeCpu) / (2 * n))} µs/edge, server ${Math.round(((s2! - s1!) * 1000) / (2 * n))} µs/edge`,
    );
  };
  await importSite(WARM, false);
  for (let r = 0; r < ROUNDS; r += 1) await importSite(N, true);
  if (TALLY) {
    const rows = [...tally.entries()].sort((a, b) => b[1].serverMs - a[1].serverMs);
    for (const [q, t] of rows.slice(0, 40)) {
      console.log(
        `${String(t.count).padStart(6)} ${String(t.rows).padStart(7)} ${t.serverMs.toFixed(0).padStart(7)} ms  ${q}`,
      );
    }
  }
} finally {
  await clock.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
