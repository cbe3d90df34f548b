/**
 * What each part of an item node's layout costs the Neo4j server (issue 17): the import's node
 * shape (a `place` item: 5 fields and the item bookkeeping) written with createNodes' statement
 * in transactions of 500 nodes (5 statements of 100, as the import), the server's process CPU
 * per node for each variant, variants alternated round by round. Not part of `pnpm bench`.
 *
 * Variants: engine, engine-norule (no unique rule), engine-main[-norule] (BENCH_MAIN_SRC's engine),
 * raw statements: raw, raw-nop (no p_ copies), raw-lean, raw-claim, raw-uk, raw-uk-noft (no full-text
 * properties), raw-uk-nol (no `L_` labels), raw-min (only g, id, labels, json); combine the words.
 * Run: NEO4J_URI=bolt://… ROUNDS=3 N=5000 VARIANTS=full,noclaim npx tsx --tsconfig bench/tsconfig.json bench/probe-neo4j-layout.ts
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import neo4j from 'neo4j-driver';
import { createNeo4jEngine } from '../src/engines/neo4j';

// Variant `engine-main`: the engine of another copy of src/ (BENCH_MAIN_SRC, inside this package), for an A/B.
const mainSrc = process.env.BENCH_MAIN_SRC;
const mainEngineModule = mainSrc
  ? ((await import(`${mainSrc}/engines/neo4j/index.ts`)) as typeof import('../src/engines/neo4j'))
  : null;

import { storedNodeOwn } from '../src/engines/neo4j/stored-node';
import { neo4jCpuClock } from './neo4j-server';

const N = Number(process.env.N ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const VARIANTS = (process.env.VARIANTS ?? 'engine,engine-norule').split(',');
const uri = process.env.NEO4J_URI as string;
const auth = neo4j.auth.basic(
  process.env.NEO4J_USER ?? 'neo4j',
  process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
);

function itemNode(i: number) {
  const now = new Date().toISOString();
  return {
    id: `place:place-${i}`,
    labels: ['Place', 'Content'],
    searchText: `place ${i} place number ${i} c${i % 200} a settlement of the benchmark ${i % 97} km from the coast`,
    props: {
      slug: `place-${i}`,
      name: `Place number ${i}`,
      country: `c${i % 200}`,
      population: (i * 7919) % 1_000_000,
      about: `A settlement of the benchmark, ${i % 97} km from the coast, founded in year ${1000 + (i % 900)}.`,
      status: 'draft',
      publishedEnvs: [],
      publishedVersions: {},
      publishedAt: null,
      version: 1,
      hash: `sha256:${'0123456789abcdef'.repeat(4)}`,
      blockDocument: { time: 1795657963425, blocks: [], version: '1' },
      createdAt: now,
      updatedAt: now,
      createdBy: 'key:hb9d634cb7cb',
      updatedBy: 'key:hb9d634cb7cb',
    },
  };
}

const driver = neo4j.driver(uri, auth, { disableLosslessIntegers: true });
const clock = neo4jCpuClock(uri);
const engine = createNeo4jEngine({
  uri,
  user: process.env.NEO4J_USER ?? 'neo4j',
  password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
  edition: 'community',
  auditKey: new Uint8Array(32).fill(7),
});
await engine.init();
const mainEngine = mainEngineModule?.createNeo4jEngine({
  uri,
  user: process.env.NEO4J_USER ?? 'neo4j',
  password: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
  edition: 'community',
  auditKey: new Uint8Array(32).fill(7),
});
await mainEngine?.init();

/** Raw statements: `stored` maps, written as CREATE_NODES' write part does (no checks). */
async function raw(g: string, stored: Array<Record<string, unknown>>, text: string) {
  const session = driver.session();
  try {
    await session.executeWrite(async (tx) => {
      for (let at = 0; at < stored.length; at += 100) {
        await tx.run(text, { g, token: randomUUID(), stored: stored.slice(at, at + 100) });
      }
    });
  } finally {
    await session.close();
  }
}

/** This process's CPU per node in the last engine variant run. */
let clientUs = 0;

async function runVariant(variant: string): Promise<number> {
  clientUs = 0;
  const graphName = `probe-${randomUUID()}`;
  const nodes = Array.from({ length: N }, (_, i) => itemNode(i));
  const s0 = await clock.now();
  if (variant.startsWith('engine')) {
    const which = variant.startsWith('engine-main') ? mainEngine! : engine;
    const graph = await which.createGraph(graphName);
    if (!variant.endsWith('norule')) await graph.ensureUnique('Place', 'slug');
    const t0 = await clock.now();
    const cpu = process.cpuUsage();
    for (let at = 0; at < N; at += 500) {
      await graph.transaction(async (tx) => {
        for (let c = at; c < at + 500; c += 100) await tx.createNodes(nodes.slice(c, c + 100));
      });
    }
    const used = process.cpuUsage(cpu);
    const t1 = await clock.now();
    await which.dropGraph(graphName);
    clientUs = (used.user + used.system) / N;
    return ((t1! - t0!) * 1000) / N;
  }
  const g = graphName;
  let stored = nodes.map((node) => storedNodeOwn(node));
  const unfiltered = new Set(['p_version', 'p_hash', 'p_createdBy', 'p_updatedBy', 'p_publishedEnvs']);
  if (variant.includes('nop')) {
    stored = stored.map((s) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('p_'))));
  }
  if (variant.includes('lean')) {
    stored = stored.map((s) => Object.fromEntries(Object.entries(s).filter(([k]) => !unfiltered.has(k))));
  }
  // Attribution (session 10): without the full-text properties (`ft`, `ftg`: no Lucene
  // document), without the real `L_` labels (fewer label-index entries), or only what a read
  // needs (`g`, `id`, `labels`, `json`).
  const noText = variant.includes('noft') || variant.includes('min');
  if (variant.includes('noft')) {
    stored = stored.map((s) =>
      Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'ft' && k !== 'fts')),
    );
  }
  if (variant.includes('min')) {
    stored = stored.map((s) => ({ id: s.id, labels: s.labels, json: s.json }));
  }
  if (variant.includes('uk') || variant.includes('claim')) {
    stored = stored.map((s) => ({ ...s, k: `${randomUUID()}${randomUUID()}`.replaceAll('-', '') }));
  }
  let write =
    'UNWIND $stored AS s CREATE (n:TNode) SET n = s, n.g = $g, n.ftg = $g, n.tx = $token, n:$([l IN s.labels | "L_" + l])';
  if (noText) write = write.replace(', n.ftg = $g', '');
  if (variant.includes('nol')) write = write.replace(', n:$([l IN s.labels | "L_" + l])', '');
  if (variant.includes('claim'))
    write =
      'UNWIND $stored AS s CREATE (n:TNode) SET n = s, n.g = $g, n.ftg = $g, n.tx = $token, n:$([l IN s.labels | "L_" + l]) REMOVE n.k MERGE (u:TUnique {g: $g, k: s.k}) ON CREATE SET u.owner = s.id';
  if (variant.includes('uk'))
    write =
      'UNWIND $stored AS s CREATE (n:TNode) SET n = s, n.g = $g, n.ftg = $g, n.tx = $token, n:$([l IN s.labels | "L_" + l]) REMOVE n.k SET n.uk = s.k';
  for (let at = 0; at < N; at += 500) await raw(g, stored.slice(at, at + 500), write);
  const s1 = await clock.now();
  const session = driver.session();
  await session.run('MATCH (n:TNode {g: $g}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS', {
    g,
  });
  await session.run('MATCH (n:TUnique {g: $g}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS', {
    g,
  });
  await session.close();
  return ((s1! - s0!) * 1000) / N;
}

const results = new Map<string, number[]>();
await runVariant(VARIANTS[0]!); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
    const us = await runVariant(variant);
    results.set(variant, [...(results.get(variant) ?? []), us]);
    console.log(
      `round ${round} load ${loadavg()[0]!.toFixed(1)} ${variant}: ${us.toFixed(0)} µs server CPU per node${clientUs > 0 ? `, ${clientUs.toFixed(0)} µs client CPU` : ''}`,
    );
  }
}
for (const [variant, list] of results) console.log(`${variant}: ${list.map((x) => x.toFixed(0)).join(', ')}`);
await clock.close();
await engine.close();
await mainEngine?.close();
await driver.close();
