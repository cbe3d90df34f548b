/**
 * Neo4j `findNodes` by a rare label on a large site graph (issue 17): the webhook delivery
 * poll's query shape (`WebhookDelivery` by status and time) against a graph of BENCH_LABEL_ITEMS
 * `Item` nodes (default 50,000) and 20 deliveries. Prints wall time per call (median) and the
 * Neo4j server's CPU per call (JMX ProcessCpuTime), with the load average. The graph
 * (`bench-find-label`) is kept between runs (seeded once); BENCH_LABEL_DROP=1 drops it at the end.
 *
 * Run: NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=… pnpm --filter @trelliscms/server exec
 *   tsx --tsconfig bench/tsconfig.json bench/find-label.ts
 * (BENCH_ENGINE_SRC=<dir> imports the engine from another copy of src/, for an A/B against an
 * older version.)
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { GraphEngine, GraphNode, NodeQuery } from '../src/engines/port';
import { loadNow, neo4jCpuClock } from './neo4j-server';

const uri = process.env.NEO4J_URI;
if (!uri) throw new Error('Set NEO4J_URI');
const ITEMS = Number(process.env.BENCH_LABEL_ITEMS ?? 50_000);
const CALLS = Number(process.env.BENCH_LABEL_CALLS ?? 200);
const GRAPH = 'bench-find-label';
const src = resolve(process.env.BENCH_ENGINE_SRC ?? new URL('../src', import.meta.url).pathname);
const { createNeo4jEngine } = (await import(`${src}/engines/neo4j/index.ts`)) as {
  createNeo4jEngine: (o: object) => GraphEngine;
};
const engine = createNeo4jEngine({
  uri,
  user: process.env.NEO4J_USER ?? 'neo4j',
  password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
  edition: 'community',
  auditKey: randomBytes(32),
});
const initStart = performance.now();
await engine.init();
const initMs = performance.now() - initStart;
let graph = await engine.openGraph(GRAPH);
if (graph === null) {
  graph = await engine.createGraph(GRAPH);
  for (let i = 0; i < ITEMS; i += 1000) {
    const batch: GraphNode[] = [];
    for (let j = i; j < Math.min(ITEMS, i + 1000); j++) {
      batch.push({
        id: `item-${j}`,
        labels: ['Item'],
        props: { title: `Item ${j}`, n: j, status: 'pending' },
      });
    }
    await graph.createNodes(batch);
  }
  const deliveries: GraphNode[] = [];
  for (let j = 0; j < 20; j++) {
    deliveries.push({
      id: `wd-${j}`,
      labels: ['WebhookDelivery'],
      props: { status: j % 2 ? 'pending' : 'done', nextAttemptAt: new Date(2026, 0, 1 + j).toISOString() },
    });
  }
  await graph.createNodes(deliveries);
  console.log(`seeded ${ITEMS} items and 20 deliveries`);
}
const poll: NodeQuery = {
  label: 'WebhookDelivery',
  where: [
    { prop: 'status', op: 'eq', value: 'pending' },
    { prop: 'nextAttemptAt', op: 'lte', value: new Date().toISOString() },
  ],
  orderBy: [{ prop: 'nextAttemptAt', direction: 'asc' }],
  limit: 50,
};
for (let i = 0; i < 20; i++) await graph.findNodes(poll);
const clock = neo4jCpuClock(uri);
const load = loadNow();
const cpu0 = await clock.now();
const times: number[] = [];
let found = 0;
for (let i = 0; i < CALLS; i++) {
  const t = performance.now();
  const page = await graph.findNodes(poll);
  times.push(performance.now() - t);
  found = page.nodes.length;
}
const cpu1 = await clock.now();
times.sort((a, b) => a - b);
const serverCpu = cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) / CALLS).toFixed(2);
console.log(
  `engine ${src}: init ${initMs.toFixed(0)} ms; findNodes(WebhookDelivery) on ${ITEMS} items: median ${times[Math.floor(CALLS / 2)]!.toFixed(2)} ms wall, server CPU ${serverCpu} ms per call (${CALLS} calls, ${found} found), ${load}`,
);
await clock.close();
if (process.env.BENCH_LABEL_DROP === '1') await engine.dropGraph(GRAPH);
await engine.close();
