import { describe, expect, it } from 'vitest';
import { ValidateResults } from './validate-results';

describe('ValidateResults', () => {
  it('keeps a result per site for its time to live, and at most `max` of them', () => {
    let now = 1_000;
    const results = new ValidateResults({ ttlMs: 100, max: 2, now: () => now });
    results.remember('site:a', { buildId: 'b1', ok: true });
    expect(results.get('site:a', 'b1')).toEqual({ buildId: 'b1', ok: true });
    expect(results.get('site:b', 'b1')).toBeNull();
    now += 101;
    expect(results.get('site:a', 'b1')).toBeNull();
    results.remember('site:a', { buildId: 'b2' });
    results.remember('site:a', { buildId: 'b3' });
    results.remember('site:a', { buildId: 'b4' });
    expect(results.get('site:a', 'b2')).toBeNull();
    expect(results.get('site:a', 'b3')).not.toBeNull();
    expect(results.get('site:a', 'b4')).not.toBeNull();
    results.remember('site:a', { ok: false });
    expect(results.get('site:a', 'undefined')).toBeNull();
  });
});
