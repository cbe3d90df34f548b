/**
 * What one coalesced point-read statement costs (issue 17 item 1, reads): the Neo4j server's
 * process CPU and this process's CPU per statement and per read, and the Bolt socket writes
 * per statement, for statements carrying 1, 2, 10 and 50 node reads (plus one edge read), sent
 * one after another (`C` at once, default 1), and the JVM's idle CPU over the same time.
 * Variants alternate round by round. Not part of `pnpm bench`.
 *
 * Run: NEO4J_URI=bolt://… ROUNDS=3 N=2000 pnpm --filter @trelliscms/server exec tsx --tsconfig bench/tsconfig.json bench/probe-neo4j-reads.ts
 * VARIANTS: idle, engine-1, engine-2, engine-10, engine-50 (the engine's getNode/getEdges, coalesced),
 * getnode (one `getNode` at a time: median and p99 wall), return1 (the statement `RETURN 1`), paced-<ms> (`RETURN 1` every <ms> ms). BENCH_ENGINE_SRC=<path to another src/> for an A/B.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import neo4j from 'neo4j-driver';
import { createNeo4jEngine as ownEngine } from '../src/engines/neo4j';
import { neo4jCpuClock } from './neo4j-server';

const N = Number(process.env.N ?? 2000);
const C = Number(process.env.C ?? 1);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const VARIANTS = (process.env.VARIANTS ?? 'idle,return1,engine-1,engine-2,engine-10,engine-50').split(',');
const uri = process.env.NEO4J_URI as string;
const user = process.env.NEO4J_USER ?? 'neo4j';
const password = process.env.NEO4J_PASSWORD ?? 'trellis-test-pw';

// Count the Bolt socket writes (the driver's channel writes).
const driverRequire = createRequire(createRequire(import.meta.url).resolve('neo4j-driver'));
const channelModule = driverRequire('neo4j-driver-bolt-connection/lib/channel/node/node-channel.js') as {
  default?: { prototype: { write(buffer: unknown): unknown } };
} | null;
let writes = 0;
const channel = channelModule?.default?.prototype;
if (channel) {
  const write = channel.write;
  channel.write = function (this: unknown, buffer: unknown) {
    writes += 1;
    return write.call(this, buffer);
  };
}

// BENCH_ENGINE_SRC: the engine of another copy of src/ (inside this package), for an A/B.
const createNeo4jEngine = process.env.BENCH_ENGINE_SRC
  ? (
      (await import(
        `${process.env.BENCH_ENGINE_SRC}/engines/neo4j/index.ts`
      )) as typeof import('../src/engines/neo4j')
    ).createNeo4jEngine
  : ownEngine;
const engine = createNeo4jEngine({
  uri,
  user,
  password,
  edition: 'community',
  auditKey: Buffer.alloc(32, 1),
});
await engine.init();
const graphName = 'probe-reads';
const graph = (await engine.openGraph(graphName)) ?? (await engine.createGraph(graphName));
await graph.transaction(async (tx) => {
  const ids = Array.from({ length: 100 }, (_, i) => `n:${i}`);
  const existing = await tx.getNodes(ids);
  const have = new Set(existing.map((node) => node.id));
  const missing = ids.filter((id) => !have.has(id));
  if (missing.length > 0)
    await tx.createNodes(
      missing.map((id, i) => ({
        id,
        labels: ['Thing'],
        props: { title: `thing ${i}`, body: 'x'.repeat(400), n: i },
      })),
    );
  if (missing.length > 0)
    await tx.mergeEdges(missing.slice(1).map((id) => ({ from: 'n:0', to: id, type: 'NEAR', props: {} })));
});
const driver = neo4j.driver(uri, neo4j.auth.basic(user, password), { disableLosslessIntegers: true });
const clock = neo4jCpuClock(uri);

const durations: number[] = [];

async function one(variant: string, i: number): Promise<void> {
  if (variant.startsWith('paced')) {
    // `RETURN 1` every PACE ms (paced-5: every 5 ms): is the server's CPU per statement or per second of activity?
    await new Promise((resolve) => setTimeout(resolve, Number(variant.split('-')[1] ?? 5)));
  }
  if (variant === 'return1' || variant.startsWith('paced')) {
    const session = driver.session();
    try {
      await session.run('RETURN 1 AS one');
    } finally {
      await session.close();
    }
    return;
  }
  if (variant === 'getnode') {
    // One getNode alone (a statement of its own): its wall time, for the median of issue 17's goal.
    const started = performance.now();
    await graph.getNode(`n:${i % 100}`);
    durations.push(performance.now() - started);
    return;
  }
  const k = Number(variant.split('-')[1]);
  const reads: Promise<unknown>[] = [graph.getEdges({ from: `n:${i % 100}` })];
  for (let j = 0; j < k; j += 1) reads.push(graph.getNode(`n:${(i + j) % 100}`));
  await Promise.all(reads);
}

async function measure(variant: string) {
  const cpu0 = process.cpuUsage();
  const server0 = (await clock.now()) as number;
  const writes0 = writes;
  durations.length = 0;
  const started = performance.now();
  if (variant === 'idle') await new Promise((resolve) => setTimeout(resolve, 3000));
  else {
    let next = 0;
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < N) await one(variant, next++);
      }),
    );
  }
  const wallMs = performance.now() - started;
  const server1 = (await clock.now()) as number;
  const cpu = process.cpuUsage(cpu0);
  const n = variant === 'idle' ? 1 : N;
  return {
    variant,
    wallUs: (wallMs * 1000) / n,
    serverUs: ((server1 - server0) * 1000) / n,
    serverPerSec: (server1 - server0) / (wallMs / 1000),
    clientUs: (cpu.user + cpu.system) / n,
    writes: (writes - writes0) / n,
    median: quantile(0.5),
    p99: quantile(0.99),
  };
}

function quantile(q: number): number | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

for (const variant of VARIANTS) if (variant !== 'idle') await measure(variant); // warm-up
for (let round = 1; round <= ROUNDS; round += 1) {
  for (const variant of VARIANTS) {
    const load = loadavg()[0]?.toFixed(1);
    const r = await measure(variant);
    console.log(
      variant === 'idle'
        ? `round ${round} idle: JVM ${r.serverPerSec.toFixed(1)} ms CPU per s (load ${load})`
        : `round ${round} ${variant}: per statement wall ${r.wallUs.toFixed(0)} µs, Neo4j CPU ${r.serverUs.toFixed(0)} µs (${r.serverPerSec.toFixed(0)} ms/s), client CPU ${r.clientUs.toFixed(0)} µs, socket writes ${r.writes.toFixed(2)}${r.median === null ? '' : `, median ${(r.median * 1000).toFixed(0)} µs, p99 ${((r.p99 ?? 0) * 1000).toFixed(0)} µs`} (load ${load})`,
    );
  }
}
await clock.close();
await driver.close();
await engine.close();
