import { Neo4jError, type Session } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { isEngineError } from '../port';
import { PointReads } from './point-reads';

// The coalescer's own behaviour, without a server: a fake session answers the one statement
// (the real statement is checked against Neo4j by the contract suite and neo4j-engine.test.ts).

interface Sent {
  query: string;
  params: { nodes: Array<{ i: number; g: string; id: string }>; edges: Array<{ i: number; from: string }> };
  stackTraceLimit: number;
}

function fakeSessions(answer: (sent: Sent) => { nodes: unknown[]; edges: unknown[] } | Error) {
  const sent: Sent[] = [];
  const open = () =>
    ({
      run(query: string, params: Sent['params']) {
        const call = { query, params, stackTraceLimit: Error.stackTraceLimit };
        sent.push(call);
        const result = answer(call);
        if (result instanceof Error) return Promise.reject(result);
        return Promise.resolve({ records: [{ get: (key: 'nodes' | 'edges') => result[key] }] });
      },
      close: () => Promise.resolve(),
    }) as unknown as Session;
  return { open, sent };
}

describe('PointReads', () => {
  it('reads the nodes of one turn from flat rows, giving each caller objects of its own', async () => {
    const { open, sent } = fakeSessions(({ params }) => ({
      nodes: params.nodes
        .filter((k) => k.id !== 'missing')
        .map((k) => [k.i, k.id, ['Place'], JSON.stringify({ name: `${k.g}/${k.id}`, n: [1, 2] })]),
      edges: params.edges.map((k) => [k.i, 'NEAR', 'b', '{"w":1}']),
    }));
    const reads = new PointReads(open);
    const [first, second, other, missing, edges] = await Promise.all([
      reads.node('g1', 'a'),
      reads.node('g1', 'a'),
      reads.node('g2', 'a'),
      reads.node('g1', 'missing'),
      reads.edges('g1', 'a', null),
    ]);
    // One statement for the turn; the same key once.
    expect(sent).toHaveLength(1);
    expect(sent[0]?.params.nodes.map((k) => `${k.g}/${k.id}`)).toEqual(['g1/a', 'g2/a', 'g1/missing']);
    expect(first).toEqual({ id: 'a', labels: ['Place'], props: { name: 'g1/a', n: [1, 2] } });
    expect(other?.props.name).toBe('g2/a');
    expect(missing).toBeNull();
    expect(edges).toEqual([{ from: 'a', type: 'NEAR', to: 'b', props: { w: 1 } }]);
    // Callers of the same key do not share objects.
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(second?.labels).not.toBe(first?.labels);
    expect(second?.props).not.toBe(first?.props);
  });

  it('sends the statement without capturing a stack trace, and restores the limit', async () => {
    const limit = Error.stackTraceLimit;
    const { open, sent } = fakeSessions(() => ({ nodes: [], edges: [] }));
    await new PointReads(open).node('g', 'a');
    expect(sent[0]?.stackTraceLimit).toBe(0);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('fails each read of a batch the server refuses, as an engine error when the server is unreachable', async () => {
    const unreachable = new Neo4jError('connection refused', 'ServiceUnavailable', 'N/A', 'N/A');
    const { open, sent } = fakeSessions(() => unreachable);
    const reads = new PointReads(open);
    const results = await Promise.allSettled([reads.node('g', 'a'), reads.edges('g', 'a', 'NEAR')]);
    // ServiceUnavailable is retryable: three attempts, then each read fails.
    expect(sent).toHaveLength(3);
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(isEngineError(reason, 'unavailable')).toBe(true);
    }
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
  });
});
