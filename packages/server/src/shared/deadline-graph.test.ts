import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedEngine } from '../engines/embedded';
import type { CallOptions, Graph, GraphEngine } from '../engines/port';
import { boundedGraph, isQueryTimeout, unboundedGraph } from './deadline-graph';

let dir: string;
let engine: GraphEngine;
let graph: Graph;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trellis-deadline-'));
  engine = createEmbeddedEngine({ dataDir: dir });
  await engine.init();
  graph = await engine.createGraph('g');
});
afterEach(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

const node = (id: string) => ({ id, labels: ['Post'], props: { title: id } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('boundedGraph', () => {
  it('passes calls through before the deadline and refuses every call after it with a timeout of the budget', async () => {
    const bounded = boundedGraph(graph, { at: Date.now() + 200, timeoutMs: 200 });
    await bounded.createNode(node('post:a'));
    expect((await bounded.getNode('post:a'))?.id).toBe('post:a');
    expect((await bounded.findNodes({ label: 'Post' })).total).toBe(1);
    await sleep(250);
    const refused = [
      bounded.getNode('post:a'),
      bounded.findNodes({ label: 'Post' }),
      bounded.createNode(node('post:b')),
      bounded.transaction(async (tx) => tx.getNode('post:a')),
    ];
    for (const call of refused) {
      const error = await call.then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ name: 'EngineError', kind: 'timeout', details: { timeoutMs: 200 } });
      expect(isQueryTimeout(error)).toBe(true);
    }
    expect(await graph.getNode('post:b')).toBeNull();
  });

  it('rolls back a transaction whose calls run past the deadline', async () => {
    const bounded = boundedGraph(graph, { at: Date.now() + 100, timeoutMs: 100 });
    const outcome = await bounded
      .transaction(async (tx) => {
        await tx.createNode(node('post:first'));
        await sleep(150);
        await tx.createNode(node('post:late'));
      })
      .then(
        () => 'committed',
        (error: unknown) => (isQueryTimeout(error) ? 'timeout' : String(error)),
      );
    expect(outcome).toBe('timeout');
    expect(await graph.getNode('post:first')).toBeNull();
  });

  it('hands findNodes and transaction the deadline, and gives back the graph it wraps', async () => {
    const seen: Array<CallOptions | undefined> = [];
    const spy = new Proxy(graph, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key !== 'findNodes' && key !== 'transaction') return value;
        return (first: unknown, options?: CallOptions) => {
          seen.push(options);
          return (value as (a: unknown, b?: CallOptions) => Promise<unknown>).call(target, first, options);
        };
      },
    });
    const at = Date.now() + 60_000;
    const bounded = boundedGraph(spy, { at, timeoutMs: 60_000 });
    await bounded.findNodes({ label: 'Post' });
    await bounded.transaction(async (tx) => tx.getNode('x'));
    expect(seen).toEqual([{ deadline: at }, { deadline: at }]);
    expect(unboundedGraph(bounded)).toBe(spy);
    expect(unboundedGraph(boundedGraph(bounded, { at, timeoutMs: 1 }))).toBe(spy);
    expect(unboundedGraph(graph)).toBe(graph);
  });
});
