import { describe, expect, it } from 'vitest';
import { type IndexedEdge, readEdge, runSplitting } from './edge-input';

const edge = (index: number): IndexedEdge => ({
  index,
  edge: { from: `country:c${index}`, type: 'BORDERS', to: 'country:fr', props: {} },
});

describe('readEdge', () => {
  it('reads a well-formed edge, and names what is wrong with a malformed one', () => {
    expect(readEdge({ from: 'country:gm', edge: 'BORDERS', to: 'country:fr' }, 0)).toEqual({
      edge: { from: 'country:gm', type: 'BORDERS', to: 'country:fr', props: {} },
    });
    expect(readEdge({ from: 'country:gm', edge: 'borders', to: 'country:fr' }, 3)).toMatchObject({
      error: { index: 3, error: expect.stringContaining('edge:') },
    });
    const long = `country:${'x'.repeat(505)}`;
    expect(readEdge({ from: long, edge: 'BORDERS', to: long }, 1)).toEqual({
      error: {
        index: 1,
        error: 'from: an item id has at most 512 characters; to: an item id has at most 512 characters',
      },
    });
    expect(readEdge({ from: long.slice(0, 512), edge: 'BORDERS', to: 'country:fr' }, 1)).toHaveProperty(
      'edge',
    );
  });
});

describe('runSplitting', () => {
  it('retries a refused batch in halves until only the offending edges fail, running each good edge once', async () => {
    const bad = new Set([5, 6]);
    const landed: number[] = [];
    const failed: number[] = [];
    let runs = 0;
    await runSplitting(
      Array.from({ length: 16 }, (_, i) => edge(i)),
      async (batch) => {
        runs += 1;
        if (batch.some((item) => bad.has(item.index))) throw new Error('refused');
        landed.push(...batch.map((item) => item.index));
      },
      (item) => failed.push(item.index),
    );
    expect(failed).toEqual([5, 6]);
    expect(landed.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(runs).toBeLessThan(16);
  });
});
