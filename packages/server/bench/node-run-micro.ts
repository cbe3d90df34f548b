/**
 * Engine-only node inserts as the import writes them (issue 20 item 4, session 13): N small
 * rows through `createNodeRun` in transactions of 500 (the import's batch), called per CHUNK
 * rows (the import's WRITE_CHUNK is 100) — CHUNK=100 and CHUNK=500 alternate, each into a
 * fresh engine, ROUNDS times. Process CPU and wall. Not part of `pnpm bench`. No unique
 * values (the per-row work is smaller than the import's, so a per-call cost shows more), but
 * with UNIQUE=1: then `Article.slug` is a unique constraint and every row holds a slug (round 9).
 * CHUNKS=500 runs calls of 500 rows only.
 * Run: N=20000 ROUNDS=3 npx tsx --tsconfig bench/tsconfig.json bench/node-run-micro.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedEngine } from '../src/engines/embedded';

const N = Number(process.env.N ?? 20000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCH = 500;
const UNIQUE = process.env.UNIQUE === '1';
const CHUNKS = (process.env.CHUNKS ?? '100,500').split(',').map(Number);
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function once(chunk: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-node-run-micro-'));
  const engine = createEmbeddedEngine({ dataDir: dir, auditKey: new Uint8Array(32) });
  await engine.init();
  try {
    const graph = await engine.createGraph('g');
    if (UNIQUE) await graph.ensureUnique('Article', 'slug');
    const ids = Array.from({ length: N }, (_, i) => `article:article-${i}`);
    const propsJson = ids.map((id, i) =>
      JSON.stringify({ title: `Article ${i}`, slug: id.slice(8), body: 'x'.repeat(40) }),
    );
    const searchText = ids.map((_, i) => `Article ${i} ${'x'.repeat(40)}`);
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let at = 0; at < N; at += BATCH) {
      await graph.transaction(async (tx) => {
        for (let k = at; k < Math.min(at + BATCH, N); k += chunk) {
          const end = Math.min(k + chunk, at + BATCH, N);
          await tx.createNodeRun!({
            labels: ['Article', 'Content'],
            ids: ids.slice(k, end),
            propsJson: propsJson.slice(k, end),
            searchText: searchText.slice(k, end),
            uniqueProps: ids.slice(k, end).map((id) => (UNIQUE ? { slug: id.slice(8) } : {})),
          });
        }
      });
    }
    const ms = performance.now() - t;
    return `chunk ${chunk}: ${N} nodes ${ms.toFixed(0)} ms wall, ${cpuMs(process.cpuUsage(cpu)).toFixed(0)} ms cpu; load ${loadavg()[0]!.toFixed(1)}`;
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = 0; r < ROUNDS; r++) {
  for (const chunk of r % 2 === 0 ? CHUNKS : [...CHUNKS].reverse()) console.log(await once(chunk));
}
