/**
 * Engine-only edge merge (issue 20 item 4): N nodes, then E new edges merged in transactions of
 * 2,000, mergeEdges called per CHUNK edges (the import route's MERGE_CHUNK is 250); the second
 * set of E edges is timed. Process CPU and wall. Not part of `pnpm bench`.
 * FIRST=1 times the first set instead (into an empty edges table, as import-sizes.ts).
 * Run: CHUNK=250 ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/edge-merge-micro.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedEngine } from '../src/engines/embedded';

const N = Number(process.env.N ?? 20000);
const E = Number(process.env.E ?? 40000);
const CHUNK = Number(process.env.CHUNK ?? 250);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const edges = (round: number) =>
  Array.from({ length: E }, (_, i) => ({
    from: `article:article-${i % N}`,
    type: 'RELATED',
    to: `article:article-${round === 0 ? (i * 7 + 1 + Math.floor(i / N)) % N : (i * 11 + 3 + Math.floor(i / N)) % N}`,
    props: {},
  }));
for (let r = 0; r < ROUNDS; r++) {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-edge-micro-'));
  const engine = createEmbeddedEngine({ dataDir: dir, auditKey: new Uint8Array(32) });
  await engine.init();
  try {
    const graph = await engine.createGraph('g');
    const ids = Array.from({ length: N }, (_, i) => `article:article-${i}`);
    for (let at = 0; at < N; at += 500)
      await graph.createNodes(ids.slice(at, at + 500).map((id) => ({ id, labels: ['Article'], props: {} })));
    const load = async (list: ReturnType<typeof edges>) => {
      for (let at = 0; at < list.length; at += 2000)
        await graph.transaction(async (tx) => {
          for (let k = at; k < Math.min(at + 2000, list.length); k += CHUNK)
            await tx.mergeEdges(list.slice(k, Math.min(k + CHUNK, at + 2000)));
        });
    };
    // FIRST=1: time the first set (into an empty edges table, as import-sizes.ts), else the second
    if (process.env.FIRST !== '1') await load(edges(0));
    const second = edges(process.env.FIRST === '1' ? 0 : 1);
    const cpu = process.cpuUsage();
    const t = performance.now();
    await load(second);
    const ms = performance.now() - t;
    console.log(
      `chunk ${CHUNK}: ${E} edges ${ms.toFixed(0)} ms wall, ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu; load ${loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
