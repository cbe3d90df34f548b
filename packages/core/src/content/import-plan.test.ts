import { describe, expect, it } from 'vitest';
import { batchCount, batchRanges, gatewayTimeoutWarning, perSecond, tooManyAdvice } from './import-plan';

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

  it('advises evenly sized calls past the maximum', () => {
    expect(tooManyAdvice({ count: 50_000, max: 50_000 })).toBeNull();
    expect(tooManyAdvice({ count: 120_000, max: 50_000 })).toEqual({
      suggestedBatchSize: 40_000,
      suggestedCallCount: 3,
    });
  });

  it('warns when the projected time outlasts a gateway timeout', () => {
    expect(gatewayTimeoutWarning({ count: 1000, recordsPerSec: 100, timeoutMs: 25_000 })).toBeNull();
    const warning = gatewayTimeoutWarning({ count: 10_000, recordsPerSec: 100, timeoutMs: 25_000 });
    expect(warning).toMatchObject({ suggestedBatchSize: 2000, suggestedCallCount: 5 });
    expect(warning?.message).toContain('100 s');
    expect(gatewayTimeoutWarning({ count: 10, recordsPerSec: 1e6, tookMs: 30_000 })).not.toBeNull();
  });

  it('computes a rate', () => {
    expect(perSecond({ count: 500, ms: 250 })).toBe(2000);
  });
});
