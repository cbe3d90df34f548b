import { describe, expect, it } from 'vitest';
import { chunksOf, startAhead } from './render-pool';

describe('render pool chunks', () => {
  it('keeps every spec once, in order, the last quarter in smaller chunks', () => {
    const specs = Array.from({ length: 1_003 }, (_, i) => i);
    const chunks = chunksOf(specs, 100);
    expect(chunks.flat()).toEqual(specs);
    // chunks of 100 until the last quarter (the last 250 specs) begins, then chunks of 25
    const small = chunks.filter((chunk) => chunk[0]! >= 1_003 - 250);
    const large = chunks.filter((chunk) => chunk[0]! < 1_003 - 250);
    expect(large.map((chunk) => chunk.length)).toEqual([100, 100, 100, 100, 100, 100, 100, 100]);
    expect(small.map((chunk) => chunk.length)).toEqual([25, 25, 25, 25, 25, 25, 25, 25, 3]);
    expect(chunksOf([], 100)).toEqual([]);
    expect(chunksOf([1, 2, 3], 10)).toEqual([[1, 2, 3]]);
  });

  it('queues more chunks at the start of a large run, never more than a third of them per worker', () => {
    // a 10,000-page build on 2 workers: 16 chunks each at the start
    expect(startAhead(186, 2)).toBe(16);
    // a small run: what a worker keeps queued anyway
    expect(startAhead(6, 2)).toBe(3);
    expect(startAhead(30, 2)).toBe(5);
    expect(startAhead(30, 2) * 2).toBeLessThanOrEqual(30 / 3 + 1);
  });
});
