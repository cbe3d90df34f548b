import { describe, expect, it } from 'vitest';
import { IMPORT_EDGES_BATCH, IMPORT_JSON_BATCH } from '../schemas/import';
import {
  batchCount,
  batchRanges,
  gatewayTimeoutWarning,
  IMPORT_MAX_EDGES,
  IMPORT_MAX_RECORDS,
  perSecond,
  type SplitAdvice,
  tooManyAdvice,
} from './import-plan';

describe('import batching', () => {
  it('splits records into batches', () => {
    expect(batchCount({ count: 0, batchSize: 100 })).toBe(0);
    expect(batchCount({ count: 201, batchSize: 100 })).toBe(3);
    expect(batchRanges({ count: 5, batchSize: 2 })).toEqual([
      [0, 2],
      [2, 4],
      [4, 5],
    ]);
  });

  it('advises calls of one valid batch each past the maximum, evenly sized', () => {
    expect(tooManyAdvice({ count: 50_000, max: 50_000 })).toBeNull();
    // Records: batchSize 1..500.
    expect(tooManyAdvice({ count: 50_001, max: 50_000 })).toEqual({
      suggestedBatchSize: 496,
      suggestedCallCount: 101,
    });
    expect(tooManyAdvice({ count: 120_000, max: 50_000 })).toEqual({
      suggestedBatchSize: 500,
      suggestedCallCount: 240,
    });
    // Edges: batchSize 1..2000.
    expect(tooManyAdvice({ count: 200_001, max: 200_000, maxBatchSize: IMPORT_EDGES_BATCH.max })).toEqual({
      suggestedBatchSize: 1981,
      suggestedCallCount: 101,
    });
    // A per-request maximum below the largest batch bounds the calls too.
    expect(tooManyAdvice({ count: 11, max: 10 })).toEqual({ suggestedBatchSize: 6, suggestedCallCount: 2 });
  });

  it('keeps every suggestion a valid batchSize whose calls cover the items, with no call to spare', () => {
    const valid = (advice: SplitAdvice | null, count: number, maxBatchSize: number) => {
      expect(advice).not.toBeNull();
      const { suggestedBatchSize: size, suggestedCallCount: calls } = advice!;
      expect(Number.isInteger(size) && size >= 1 && size <= maxBatchSize, `size ${size} of ${count}`).toBe(
        true,
      );
      expect(size * calls).toBeGreaterThanOrEqual(count);
      expect(size * (calls - 1)).toBeLessThan(count);
    };
    for (const count of [50_001, 50_499, 50_500, 50_501, 99_999, 100_000, 1_000_000]) {
      valid(tooManyAdvice({ count, max: IMPORT_MAX_RECORDS }), count, IMPORT_JSON_BATCH.max);
    }
    for (const count of [200_001, 201_999, 202_000, 10_000_000]) {
      valid(
        tooManyAdvice({ count, max: IMPORT_MAX_EDGES, maxBatchSize: IMPORT_EDGES_BATCH.max }),
        count,
        IMPORT_EDGES_BATCH.max,
      );
    }
    for (const [count, recordsPerSec, tookMs] of [
      [10_000, 100, 0],
      [50_000, 1e9, 30_000],
      [50_000, 0.01, 0],
      [26, 1, 0],
      [1_000_000, 5000, 0],
    ] as const) {
      valid(gatewayTimeoutWarning({ count, recordsPerSec, tookMs }), count, IMPORT_JSON_BATCH.max);
    }
  });

  it('warns when the projected time outlasts a gateway timeout', () => {
    expect(gatewayTimeoutWarning({ count: 1000, recordsPerSec: 100, timeoutMs: 25_000 })).toBeNull();
    expect(gatewayTimeoutWarning({ count: 2500, recordsPerSec: 100, timeoutMs: 25_000 })).toBeNull();
    // 10,000 records at 100/s: 2000 per call would fit 80 % of 25 s, but a batch holds 500.
    const warning = gatewayTimeoutWarning({ count: 10_000, recordsPerSec: 100, timeoutMs: 25_000 });
    expect(warning).toMatchObject({ suggestedBatchSize: 500, suggestedCallCount: 20 });
    expect(warning?.message).toContain('100 s');
    expect(warning?.message).toContain('20 calls of at most 500 records');
    // Slow enough that one record per call is all that fits.
    expect(gatewayTimeoutWarning({ count: 3, recordsPerSec: 0.01 })).toMatchObject({
      suggestedBatchSize: 1,
      suggestedCallCount: 3,
    });
    // Measured slower than estimated: the measured rate counts (10 records in 30 s).
    expect(gatewayTimeoutWarning({ count: 10, recordsPerSec: 1e6, tookMs: 30_000 })).toMatchObject({
      suggestedBatchSize: 5,
      suggestedCallCount: 2,
    });
  });

  it('computes a rate', () => {
    expect(perSecond({ count: 500, ms: 250 })).toBe(2000);
  });
});
