import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Graph, GraphEngine } from '../port';
import { SqlConnection } from './connection';
import { createEmbeddedEngine } from './index';

// The access epoch's watch skips its read while this marker stays put (auth/access-epoch.ts):
// it must move with every commit, whoever makes it, and never without one.
describe('embedded engine: commitMarker', () => {
  let dir: string;
  let engine: GraphEngine;
  let graph: Graph;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-commit-marker-'));
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
    graph = await engine.createGraph('g');
    await graph.createNode({ id: 'a', labels: ['T'], props: { n: 1 } });
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const marker = () => {
    const value = graph.commitMarker?.() ?? null;
    expect(value).not.toBeNull();
    return value as string;
  };

  it('stays while only reads run, and moves with every commit of this graph', async () => {
    const first = marker();
    await graph.getNode('a');
    await graph.getNodeJsonWithEdges('a');
    await graph.findNodes({ label: 'T' });
    expect(marker()).toBe(first);
    const seen = new Set([first]);
    for (let i = 0; i < 20; i += 1) {
      await graph.updateNode('a', { props: { n: i } });
      const next = marker();
      expect(seen.has(next)).toBe(false);
      seen.add(next);
    }
    // A transaction that wrote nothing commits nothing.
    const before = marker();
    await graph.transaction(async (tx) => {
      await tx.getNode('a');
    });
    expect(marker()).toBe(before);
  });

  it('moves with a commit made elsewhere: another engine on the same files, a bare connection', async () => {
    const before = marker();
    const other = createEmbeddedEngine({ dataDir: dir });
    await other.init();
    try {
      const same = await other.openGraph('g');
      await same?.createNode({ id: 'b', labels: ['T'], props: {} });
    } finally {
      await other.close();
    }
    const afterOther = marker();
    expect(afterOther).not.toBe(before);
    const bare = new SqlConnection(join(dir, 'graphs', 'g.db'));
    try {
      bare.run('UPDATE nodes SET props = ? WHERE id = ?', ['{"n":5}', 'a']);
      expect(marker()).not.toBe(afterOther);
      // After a checkpoint that empties the WAL, the next commit starts it again: still a new marker.
      bare.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      const checkpointed = marker();
      bare.run('UPDATE nodes SET props = ? WHERE id = ?', ['{"n":6}', 'a']);
      expect(marker()).not.toBe(checkpointed);
    } finally {
      bare.close();
    }
    expect(JSON.parse((await graph.getNodeJsonWithEdges('a'))?.propsJson ?? '{}')).toEqual({ n: 6 });
  });

  it('is null once the graph is closed', async () => {
    marker();
    await engine.close();
    expect(graph.commitMarker?.()).toBeNull();
    engine = createEmbeddedEngine({ dataDir: dir });
    await engine.init();
  });
});
