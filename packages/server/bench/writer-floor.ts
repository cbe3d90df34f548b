/**
 * Why small records stay under 75 % of the floor (issue 20, item 4; docs/benchmarks.md, "Import
 * against the raw libSQL floor", session 20): in alternating rounds, on this thread,
 * - the floor of import-sizes.ts (plain INSERTs plus FTS5 entries, 500 rows a transaction), and
 * - the detached writer's own work on the same records (DetachedRunWriter.write, as the writer's
 *   thread runs it: the rows as the import makes them — fields with the bookkeeping of a new
 *   item, the unique slug, the full-text entry, one audit row a batch — into a fresh graph file),
 * each alone and then beside a second thread that keeps the other core busy with JSON work
 * (what an import's main thread does while the writer writes). Prints each round and the
 * medians. Not part of `pnpm bench`.
 *
 * Run: N=20000 BODY=40 ROUNDS=6 npx tsx --tsconfig bench/tsconfig.json bench/writer-floor.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { searchText } from '@trelliscms/core';
import { emptyBody, itemProps } from '../src/content/item-record';
import { createEmbeddedEngine } from '../src/engines/embedded';
import { DetachedRunWriter } from '../src/engines/embedded/detached-run';
import { BATCH, floor, sizedRecord } from './import-sizes';

const N = Number(process.env.N ?? 20000);
const BODY = Number(process.env.BODY ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const type = {
  fields: [
    { name: 'slug', type: 'string' },
    { name: 'title', type: 'string' },
    { name: 'body', type: 'markdown' },
  ],
};
const records = Array.from({ length: N }, (_, i) => sizedRecord(i, BODY));
const rows = records.map((record) => ({
  id: `article:${record.slug as string}`,
  json: JSON.stringify(record),
  text: searchText({ type: type as never, fields: record }),
}));
/** A new item's bookkeeping as the import appends it to the fields' JSON (item-record.ts newItemsJson). */
const bookkeeping = JSON.stringify(
  itemProps(
    {},
    {
      status: 'draft',
      publishedEnvs: [],
      publishedVersions: {},
      publishedAt: null,
      version: 1,
      hash: `sha256:${'a'.repeat(64)}`,
      body: emptyBody(1764100000000),
      createdAt: '2026-11-27T18:00:00.000Z',
      updatedAt: '2026-11-27T18:00:00.000Z',
      createdBy: 'apikey:owner',
      updatedBy: 'apikey:owner',
    },
  ),
).slice(1, -1);
const PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = FULL',
  'wal_autocheckpoint = 10000',
  'cache_size = -65536',
  'mmap_size = 268435456',
];

/** The writer's work on the rows: a fresh graph (slug unique on Article), then one write per batch. */
async function writer(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-writer-floor-'));
  try {
    const engine = createEmbeddedEngine({ dataDir: dir, auditKey: new Uint8Array(32) });
    await engine.init();
    await (await engine.createGraph('g')).ensureUnique('Article', 'slug');
    await engine.close();
    const write = new DetachedRunWriter(join(dir, 'graphs', 'g.db'), new Uint8Array(32), PRAGMAS);
    try {
      const started = performance.now();
      for (let at = 0; at < N; at += BATCH) {
        const part = rows.slice(at, at + BATCH);
        write.write({
          run: {
            labels: ['Article', 'Content'],
            ids: part.map((row) => row.id),
            propsJson: part.map((row) => `${row.json.slice(0, -1)},${bookkeeping}}`),
            searchText: part.map((row) => row.text),
            uniqueProps: part.map((row) => ({ slug: row.id.slice('article:'.length) })),
          },
          uniqueNames: ['slug'],
          absent: [],
          audit: { actor: 'apikey:owner', action: 'content.import', target: 'type:article' },
        });
      }
      return performance.now() - started;
    } finally {
      write.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A thread that parses and serializes records until it is ended (the other core's load). */
function neighbour(): Worker {
  return new Worker(
    `const list = Array.from({ length: 2000 }, (_, i) => ({ slug: 'article-' + i, title: 'Article number ' + i, body: 'graph content site page build import record field query' }));
let n = 0;
for (;;) n += JSON.parse(JSON.stringify(list)).length;`,
    { eval: true },
  );
}

async function beside<T>(run: () => T | Promise<T>): Promise<T> {
  const busy = neighbour();
  try {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return await run();
  } finally {
    await busy.terminate();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;
const results = {
  floor: [] as number[],
  writer: [] as number[],
  floorBeside: [] as number[],
  writerBeside: [] as number[],
};
floor(rows);
await writer();
console.log(`${N} records of ${BODY} body characters; load ${loadavg()[0]!.toFixed(1)}`);
for (let round = 0; round < ROUNDS; round += 1) {
  results.floor.push(floor(rows).ms);
  results.writer.push(await writer());
  results.floorBeside.push((await beside(() => floor(rows))).ms);
  results.writerBeside.push(await beside(writer));
  console.log(
    `round ${round + 1}: floor ${results.floor.at(-1)!.toFixed(0)} ms, writer ${results.writer.at(-1)!.toFixed(0)} ms; beside a busy thread: floor ${results.floorBeside.at(-1)!.toFixed(0)} ms, writer ${results.writerBeside.at(-1)!.toFixed(0)} ms`,
  );
}
console.log(
  `medians: floor ${median(results.floor).toFixed(0)} ms, writer ${median(results.writer).toFixed(0)} ms (${((median(results.writer) / median(results.floor)) * 100).toFixed(0)} % of the floor's time); beside a busy thread: floor ${median(results.floorBeside).toFixed(0)} ms, writer ${median(results.writerBeside).toFixed(0)} ms (floor / writer beside: ${((median(results.floor) / median(results.writerBeside)) * 100).toFixed(0)} %); load ${loadavg()[0]!.toFixed(1)}`,
);
