import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Graph, NodeQuery } from '../port';
import { createEmbeddedEngine } from './index';
import { InterruptibleReads } from './interruptible-reads';

// A statement that runs for minutes: SQLite counting to 10^10 through a recursive CTE.
const ENDLESS =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) FROM c';

let dir: string;
let engine: ReturnType<typeof createEmbeddedEngine>;
let graph: Graph;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trellis-interruptible-'));
  engine = createEmbeddedEngine({ dataDir: dir });
  await engine.init();
  graph = await engine.createGraph('g');
});
afterEach(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('InterruptibleReads', () => {
  it('stops a long statement at its deadline, off the main thread, and the connection serves the next read', async () => {
    const reads = new InterruptibleReads(join(dir, 'graphs', 'g.db'));
    try {
      let ticks = 0;
      const ticker = setInterval(() => {
        ticks += 1;
      }, 10);
      const started = performance.now();
      const failure = await reads.readRow(ENDLESS, [], Date.now() + 300).then(
        () => null,
        (error: unknown) => error,
      );
      const tookMs = performance.now() - started;
      clearInterval(ticker);
      expect(failure).toMatchObject({ name: 'EngineError', kind: 'timeout' });
      // stopped at the deadline (generous slack for a busy machine), not run to its end
      expect(tookMs).toBeGreaterThanOrEqual(250);
      expect(tookMs).toBeLessThan(5000);
      // the main thread ran timers meanwhile (a synchronous statement would have held it)
      expect(ticks).toBeGreaterThan(5);
      expect(await reads.readRow('SELECT 41 + 1', [], Date.now() + 10_000)).toEqual([42]);
      // a deadline already past stops the read before it starts
      await expect(reads.readRow('SELECT 1', [], Date.now() - 1)).rejects.toMatchObject({ kind: 'timeout' });
    } finally {
      await reads.close();
    }
  }, 30_000);

  it('interrupts only the read whose deadline passed, not others running at the same time', async () => {
    const reads = new InterruptibleReads(join(dir, 'graphs', 'g.db'));
    try {
      const stopped = reads.readRow(ENDLESS, [], Date.now() + 200);
      const others = Array.from({ length: 3 }, (_, i) =>
        reads.readRow(`SELECT ${i}`, [], Date.now() + 60_000),
      );
      await expect(stopped).rejects.toMatchObject({ kind: 'timeout' });
      expect(await Promise.all(others)).toEqual([[0], [1], [2]]);
    } finally {
      await reads.close();
    }
  }, 30_000);

  it('gives the same pages as the synchronous read, when findNodes has a deadline', async () => {
    const nodes = Array.from({ length: 60 }, (_, i) => ({
      id: `post:${String(i).padStart(2, '0')}`,
      labels: i % 7 === 0 ? ['Post', 'Featured'] : ['Post'],
      props: { title: `Post ${i} ${i % 3 === 0 ? 'graph' : 'tree'}`, n: i % 5, tags: ['a', `t${i}`] },
    }));
    await graph.createNodes(nodes);
    const queries: NodeQuery[] = [
      { label: 'Post' },
      { label: 'Post', limit: 7, offset: 5 },
      { label: 'Post', orderBy: [{ prop: 'n', direction: 'desc' }], limit: 20 },
      { label: 'Post', where: [{ prop: 'n', op: 'gte', value: 3 }], orderBy: [{ prop: 'title' }] },
      { label: 'Post', q: 'graph', limit: 10 },
      { label: 'Featured' },
      { label: 'Post', limit: 0 },
      { label: 'Nothing' },
    ];
    for (const query of queries) {
      const plain = await graph.findNodes(query);
      const bounded = await graph.findNodes(query, { deadline: Date.now() + 60_000 });
      expect(bounded, JSON.stringify(query)).toEqual(plain);
    }
    await expect(graph.findNodes({ label: 'Post' }, { deadline: Date.now() - 1 })).rejects.toMatchObject({
      kind: 'timeout',
    });
  });
});
