import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Graph, GraphEngine, NodeJsonWithEdges } from '../port';
import { SqlConnection } from './connection';
import { GraphStore } from './graph-store';
import { createEmbeddedEngine } from './index';

/** What getNodeJsonWithEdges must answer, from getNode and getEdges. */
async function expected(graph: Graph, id: string): Promise<NodeJsonWithEdges | null> {
  const node = await graph.getNode(id);
  if (node === null) return null;
  const edges = await graph.getEdges({ from: id });
  return {
    labels: node.labels,
    propsJson: JSON.stringify(node.props),
    edges: edges.map((edge) => ({ type: edge.type, to: edge.to })),
  };
}

/** How many times `sql` ran through SqlConnection.run while `work` ran. */
async function countRuns(sql: string, work: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(SqlConnection.prototype, 'run');
  try {
    await work();
    return spy.mock.calls.filter(([statement]) => statement === sql).length;
  } finally {
    spy.mockRestore();
  }
}

// The item reads of one turn are answered in one read transaction (embedded-graph.ts
// getNodeJsonWithEdges): each answer must be its own item's, and the transaction must end.
describe('embedded engine: the item reads of one turn', () => {
  let dir: string;
  let engine: GraphEngine;
  let graph: Graph;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-item-reads-'));
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    graph = await engine.createGraph('items');
    await graph.transaction(async (tx) => {
      for (let i = 0; i < 6; i += 1) {
        await tx.createNode({ id: `n${i}`, labels: ['Item'], props: { i, title: `Item ${i}` } });
      }
      await tx.mergeEdge({ from: 'n0', type: 'NEAR', to: 'n2', props: { w: 1 } });
      await tx.mergeEdge({ from: 'n0', type: 'NEAR', to: 'n1', props: {} });
      await tx.mergeEdge({ from: 'n3', type: 'AUTHOR', to: 'n4', props: {} });
    });
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each read asked in one turn with its own item, in one read transaction', async () => {
    const ask = ['n0', 'missing', 'n3', 'n5', 'n0', 42 as unknown as string, 'n1'];
    let answers: Array<NodeJsonWithEdges | null> = [];
    const begins = await countRuns('BEGIN', async () => {
      answers = await Promise.all(ask.map((id) => graph.getNodeJsonWithEdges(id)));
    });
    expect(begins).toBe(1);
    for (const [index, id] of ask.entries()) {
      expect(answers[index]).toEqual(typeof id === 'string' ? await expected(graph, id) : null);
    }
    expect(answers[0]?.edges).toEqual([
      { type: 'NEAR', to: 'n1' },
      { type: 'NEAR', to: 'n2' },
    ]);
    // A read alone is a plain statement.
    expect(await countRuns('BEGIN', () => graph.getNodeJsonWithEdges('n2'))).toBe(0);
  });

  it('reads an id asked several times in one turn once, and answers it to each caller', async () => {
    const statements = vi.spyOn(GraphStore.prototype, 'getNodeJsonWithEdges');
    try {
      const ask = ['n0', 'n3', 'n0', 'missing', 'n0', 'n3', 'missing'];
      let answers: Array<NodeJsonWithEdges | null> = [];
      const begins = await countRuns('BEGIN', async () => {
        answers = await Promise.all(ask.map((id) => graph.getNodeJsonWithEdges(id)));
      });
      expect(begins).toBe(1);
      expect(statements.mock.calls.map(([id]) => id)).toEqual(['n0', 'n3', 'missing']);
      for (const [index, id] of ask.entries()) expect(answers[index]).toEqual(await expected(graph, id));
      expect(answers[2]).toBe(answers[0]);
      expect(answers[5]).toBe(answers[1]);
      // One id alone, however often asked: one plain statement, no transaction.
      statements.mockClear();
      const same = await (async () => {
        let got: Array<NodeJsonWithEdges | null> = [];
        const opened = await countRuns('BEGIN', async () => {
          got = await Promise.all([1, 2, 3, 4].map(() => graph.getNodeJsonWithEdges('n1')));
        });
        expect(opened).toBe(0);
        return got;
      })();
      expect(statements).toHaveBeenCalledTimes(1);
      expect(new Set(same).size).toBe(1);
      expect(same[0]).toEqual(await expected(graph, 'n1'));
      // Nothing outlives the turn: a write, then the same reads again, answer the new props.
      await graph.updateNode('n1', { props: { i: 1, title: 'Changed' } });
      statements.mockClear();
      const after = await Promise.all([1, 2, 3].map(() => graph.getNodeJsonWithEdges('n1')));
      expect(statements).toHaveBeenCalledTimes(1);
      expect(after[0]).not.toBe(same[0]);
      for (const read of after)
        expect(JSON.parse(read?.propsJson ?? '{}')).toEqual({ i: 1, title: 'Changed' });
    } finally {
      statements.mockRestore();
    }
  });

  it('gives the callers of one id in one turn one promise, and a new one in the next turn', async () => {
    const first = graph.getNodeJsonWithEdges('n0');
    const again = graph.getNodeJsonWithEdges('n0');
    const other = graph.getNodeJsonWithEdges('n3');
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    const [a, b, c] = await Promise.all([first, again, other]);
    expect(a).toEqual(await expected(graph, 'n0'));
    expect(b).toBe(a);
    expect(c).toEqual(await expected(graph, 'n3'));
    // the batch was answered: the next read of the same id is a read of its own
    const next = graph.getNodeJsonWithEdges('n0');
    expect(next).not.toBe(first);
    expect(await next).toEqual(a);
  });

  it('ends the transaction: a write committed elsewhere afterwards is seen by the next reads', async () => {
    await Promise.all([graph.getNodeJsonWithEdges('n0'), graph.getNodeJsonWithEdges('n1')]);
    // Another connection to the file (as another server process on the same data directory).
    const other = new SqlConnection(join(dir, 'graphs', 'items.db'));
    try {
      other.run('UPDATE nodes SET props = ? WHERE id = ?', [
        JSON.stringify({ i: 1, title: 'Changed' }),
        'n1',
      ]);
    } finally {
      other.close();
    }
    const [n0, n1] = await Promise.all([graph.getNodeJsonWithEdges('n0'), graph.getNodeJsonWithEdges('n1')]);
    expect(n1?.propsJson).toBe(JSON.stringify({ i: 1, title: 'Changed' }));
    expect(n0).toEqual(await expected(graph, 'n0'));
    // And the graph's own writes (its write connection) too.
    await graph.updateNode('n0', { props: { i: 0, title: 'Mine' } });
    const again = await Promise.all([graph.getNodeJsonWithEdges('n0'), graph.getNodeJsonWithEdges('n1')]);
    expect(JSON.parse(again[0]?.propsJson ?? '{}')).toEqual({ i: 0, title: 'Mine' });
  });

  it('sees committed data only, while a transaction of the graph is open', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const wroteInside = new Promise<void>((resolve) => {
      written = resolve;
    });
    const tx = graph.transaction(async (t) => {
      await t.createNode({ id: 'inside', labels: ['Item'], props: {} });
      await t.updateNode('n2', { props: { i: 2, title: 'uncommitted' } });
      written();
      await gate;
    });
    await wroteInside;
    const [inside, n2] = await Promise.all([
      graph.getNodeJsonWithEdges('inside'),
      graph.getNodeJsonWithEdges('n2'),
    ]);
    expect(inside).toBeNull();
    expect(JSON.parse(n2?.propsJson ?? '{}')).toEqual({ i: 2, title: 'Item 2' });
    release();
    await tx;
    const after = await Promise.all([graph.getNodeJsonWithEdges('inside'), graph.getNodeJsonWithEdges('n2')]);
    expect(after[0]).not.toBeNull();
    expect(JSON.parse(after[1]?.propsJson ?? '{}')).toEqual({ i: 2, title: 'uncommitted' });
  });

  it('rejects the reads of a closed graph, each its own, without a crash', async () => {
    await engine.close();
    const settled = await Promise.allSettled([
      graph.getNodeJsonWithEdges('n0'),
      graph.getNodeJsonWithEdges('n1'),
      graph.getNodeJsonWithEdges('n0'),
    ]);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
  });
});
