import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedEngine } from '../../engines/embedded';
import type { GraphEngine } from '../../engines/port';
import { writeNotifyingEngine } from './write-notifying-graph';

let engine: GraphEngine | undefined;
let dir: string | undefined;
afterEach(async () => {
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('writeNotifyingEngine', () => {
  it('notifies before and after every write (also a failed one and a transaction), never on reads', async () => {
    dir = await mkdtemp(join(tmpdir(), 'trellis-notify-'));
    const events: string[] = [];
    engine = writeNotifyingEngine(createEmbeddedEngine({ dataDir: dir }), (name) => events.push(name));
    await engine.init();
    const graph = await engine.createGraph('g1');
    expect(events).toEqual(['g1', 'g1']);
    expect(await engine.openGraph('g1')).toBe(graph);

    events.length = 0;
    await graph.createNode({ id: 'a', labels: ['Thing'], props: { n: 1 } });
    expect(events).toEqual(['g1', 'g1']);

    events.length = 0;
    await graph.getNode('a');
    await graph.getNodes(['a']);
    await graph.findNodes({ label: 'Thing' });
    await graph.getEdges({ from: 'a' });
    await graph.traverse({ from: 'a', direction: 'out', depth: 1 });
    await graph.auditRecords();
    expect(graph.name).toBe('g1');
    expect(events).toEqual([]);

    await expect(graph.createNode({ id: 'a', labels: ['Thing'], props: {} })).rejects.toThrow();
    expect(events).toEqual(['g1', 'g1']);

    events.length = 0;
    let inside = 0;
    await graph.transaction(async (tx) => {
      inside = events.length;
      await tx.updateNode('a', { props: { n: 2 } });
    });
    expect(inside).toBe(1);
    expect(events).toEqual(['g1', 'g1']);
    expect((await graph.getNode('a'))?.props).toEqual({ n: 2 });

    events.length = 0;
    expect(await engine.dropGraph('g1')).toBe(true);
    expect(events).toEqual(['g1', 'g1']);
  });
});
