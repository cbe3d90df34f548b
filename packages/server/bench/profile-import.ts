/**
 * Profiling driver for the import (issue 20, item 4): one app with the article type of
 * import-sizes.ts, a discarded warm-up import, then one `POST /api/import/json` of N records
 * (MODE=records, BODY characters of body each) or, after importing N small records, two
 * `POST /api/import/edges` of 50,000 new edges each (MODE=edges). Prints wall and process CPU
 * time; PROF=1 writes the inspector's CPU profile of the timed import (of the second edge
 * import) to OUT. Not part of `pnpm bench`.
 *
 * PROF_ROUND=0 profiles the first edge import instead. PERF_MARK=1 prints the timed import's
 * CLOCK_MONOTONIC bounds (for `perf record -k CLOCK_MONOTONIC` then `perf report --time`);
 * TIME_ENGINE=1 adds the wall time spent in the embedded engine's SQL calls. THREADS=1 prints
 * the timed import's CPU time per thread of the process (main, the writer's, V8's platform
 * threads) and the detached writer's counters. WARM sets the warm-up import's records (1,000).
 *
 * Run: MODE=records BODY=2450 N=6000 PROF=1 OUT=/tmp/import.cpuprofile \
 *   npx tsx --tsconfig bench/tsconfig.json bench/profile-import.ts
 */

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { importOnce, sizedRecord, withArticleSite } from './import-sizes';

const MODE = process.env.MODE ?? 'edges';
const N = Number(process.env.N ?? 20000);
const BODY = Number(process.env.BODY ?? 40);
const OWNER_KEY = 'bench-owner-key-0123456789abcdef';
// The import's preparing thread (absent in older trees: this file is also copied into one for A/B runs).
const pipeline = await import('../src/content/import-pipeline').catch(() => null);
// BENCH_IMPORT_THREAD=0: no preparing thread (A/B on one tree)
if (pipeline && process.env.BENCH_IMPORT_THREAD === '0') pipeline.importThread.enabled = false;
// BENCH_IMPORT_THREAD_MAX_BYTES: the preparing thread's limit of JSON bytes per record (importThread.maxBytesPerRecord)
if (pipeline && process.env.BENCH_IMPORT_THREAD_MAX_BYTES)
  pipeline.importThread.maxBytesPerRecord = Number(process.env.BENCH_IMPORT_THREAD_MAX_BYTES);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
// The detached writer (absent in older trees): its thread's batches, time and CPU, printed after the timed import.
const detachedWriter = await import('../src/engines/embedded/detached-writer').catch(() => null);
// TIME_ENGINE=1: wall time spent inside the embedded engine's synchronous SQL calls (the store's
// statements, BEGIN/COMMIT) during the timed import, printed beside its total: the rest of the
// main thread's time is HTTP, JSON and the import's JavaScript.
const engineMs = { sql: 0, exec: 0 };
if (process.env.TIME_ENGINE === '1') {
  const { SqlConnection } = await import('../src/engines/embedded/connection');
  const proto = SqlConnection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['row', 'rows', 'run', 'exec'] as const) {
    const original = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const t = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        engineMs[name === 'exec' ? 'exec' : 'sql'] += performance.now() - t;
      }
    };
  }
}
// TALLY=1: process CPU (user + system) and wall time per statement kind (its SQL's first 48
// characters) during the timed import, printed after it: where SQLite's share of an import goes.
const tally = new Map<string, { calls: number; cpu: number; wall: number }>();
if (process.env.TALLY === '1') {
  const { SqlConnection } = await import('../src/engines/embedded/connection');
  const proto = SqlConnection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['row', 'rows', 'run', 'exec'] as const) {
    const original = proto[name]!;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const key = String(args[0]).replace(/\s+/g, ' ').slice(0, 48);
        const entry = tally.get(key) ?? { calls: 0, cpu: 0, wall: 0 };
        entry.calls += 1;
        entry.cpu += cpuMs(process.cpuUsage(cpu));
        entry.wall += performance.now() - t;
        tally.set(key, entry);
      }
    };
  }
}
const tallyText = () =>
  [...tally]
    .sort((a, b) => b[1].cpu - a[1].cpu)
    .map(
      ([key, e]) =>
        `  ${e.cpu.toFixed(0).padStart(6)} ms cpu ${e.wall.toFixed(0).padStart(6)} ms wall ${String(e.calls).padStart(6)} calls  ${key}`,
    )
    .join('\n');
const engineText = () =>
  process.env.TIME_ENGINE === '1'
    ? `; in SQL statements ${engineMs.sql.toFixed(0)} ms, in exec (BEGIN/COMMIT/savepoints) ${engineMs.exec.toFixed(0)} ms`
    : '';
/** This process's main thread's CPU time in ms (Linux: /proc, 10 ms ticks), without other threads (the import's preparing thread, libuv's pool). */
function mainThreadMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
/** Every thread of this process: its name and CPU ms (Linux: /proc, 10 ms ticks); THREADS=1 prints the timed import's share of each. */
function threadTimes(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    }
  } catch {
    // not Linux
  }
  return out;
}
function threadText(before: Map<string, { name: string; ms: number }>): string {
  const rows: string[] = [];
  for (const [tid, now] of threadTimes()) {
    const ms = now.ms - (before.get(tid)?.ms ?? 0);
    if (ms > 0) rows.push(`  ${String(ms).padStart(6)} ms  ${now.name} (${tid})`);
  }
  return rows.join('\n');
}
await withArticleSite(async (base, site) => {
  const list = Array.from({ length: N }, (_, i) => sizedRecord(i, BODY));
  const warm = Array.from({ length: Number(process.env.WARM ?? 1000) }, (_, i) => ({
    ...sizedRecord(i, BODY),
    slug: `warm-${i}`,
  }));
  await importOnce(base, site, warm);
  await pipeline?.importThreadReady();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  const prof = process.env.PROF === '1';
  if (MODE === 'records') {
    if (prof) await session.post('Profiler.start');
    engineMs.sql = 0;
    engineMs.exec = 0;
    const main = mainThreadMs();
    // CLOCK_MONOTONIC seconds around the timed import, for `perf record -k CLOCK_MONOTONIC` then `perf report --time from,to`
    const mark = () => (Number(process.hrtime.bigint()) / 1e9).toFixed(6);
    const from = mark();
    const writerBefore = await detachedWriter?.detachedWriterStats();
    const threadsBefore = threadTimes();
    const r = await importOnce(base, site, list);
    if (process.env.THREADS === '1') {
      console.log(threadText(threadsBefore));
      const after = (await detachedWriter?.detachedWriterStats()) as Record<string, number> | undefined;
      const before = (writerBefore ?? {}) as Record<string, number>;
      if (after)
        console.log(
          Object.entries(after)
            .map(([k, v]) => `${k} ${Math.round(v - (before[k] ?? 0))}`)
            .join(', '),
        );
    }
    const writerAfter = await detachedWriter?.detachedWriterStats();
    if (process.env.PERF_MARK === '1') console.log(`perf --time ${from},${mark()}`);
    console.log(
      `records ${N} body ${BODY}: ${r.ms.toFixed(0)} ms wall, ${r.cpuMs.toFixed(0)} ms cpu (main thread ${mainThreadMs() - main} ms), ${((N / r.ms) * 1000).toFixed(0)}/s${pipeline ? `; batches with rows made ahead on the preparing thread ${pipeline.importThreadStats.fromThread} of ${pipeline.importThreadStats.batches} (warm-up included), waited ${pipeline.importThreadStats.waitedMs.toFixed(0)} ms` : ''}${engineText()}${
        writerAfter
          ? `; the detached writer's thread: ${writerAfter.batches - (writerBefore?.batches ?? 0)} batches, ${(writerAfter.writeMs - (writerBefore?.writeMs ?? 0)).toFixed(0)} ms in them (COMMIT ${(writerAfter.commitMs - (writerBefore?.commitMs ?? 0)).toFixed(0)} ms), its CPU ${writerAfter.cpuMs - (writerBefore?.cpuMs ?? 0)} ms`
          : ''
      }`,
    );
  } else {
    await importOnce(base, site, list);
    for (let round = 0; round < 2; round += 1) {
      const E = 50000;
      const edgeList = Array.from({ length: E }, (_, i) => ({
        from: `article:article-${i % N}`,
        edge: 'RELATED',
        to: `article:article-${round === 0 ? (i * 7 + 1 + Math.floor(i / N)) % N : (i * 11 + 3 + Math.floor(i / N)) % N}`,
        props: {},
      }));
      const payload = JSON.stringify({ edges: edgeList, batchSize: 2000 });
      if (prof && round === Number(process.env.PROF_ROUND ?? 1)) await session.post('Profiler.start');
      engineMs.sql = 0;
      engineMs.exec = 0;
      tally.clear();
      const cpu = process.cpuUsage();
      const main = mainThreadMs();
      const t = performance.now();
      const from = (Number(process.hrtime.bigint()) / 1e9).toFixed(6);
      const res = await fetch(`${base}/api/import/edges`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${OWNER_KEY}`,
          'x-site-id': site,
          'content-type': 'application/json',
        },
        body: payload,
      });
      const j = (await res.json()) as { failed?: number; mismatch?: number };
      const ms = performance.now() - t;
      if (j.failed || j.mismatch) throw new Error(JSON.stringify(j).slice(0, 300));
      if (process.env.PERF_MARK === '1')
        console.log(`perf --time ${from},${(Number(process.hrtime.bigint()) / 1e9).toFixed(6)}`);
      console.log(
        `edges round ${round}: ${ms.toFixed(0)} ms wall, ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu (main thread ${mainThreadMs() - main} ms), ${((E / ms) * 1000).toFixed(0)}/s${engineText()}`,
      );
      if (tally.size > 0) console.log(tallyText());
    }
  }
  if (prof) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(process.env.OUT ?? 'import.cpuprofile', JSON.stringify(profile));
  }
});
