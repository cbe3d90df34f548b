import { describe, expect, it } from 'vitest';
import { planDrip } from './drip-schedule';

const start = Date.parse('2026-01-01T00:00:00.000Z');
const hour = 3_600_000;

function gaps(timestamps: number[]): number[] {
  return timestamps.slice(1).map((value, index) => value - (timestamps[index] as number));
}

describe('planDrip', () => {
  it('spreads even timestamps from windowStart to windowEnd with equal gaps', () => {
    const plan = planDrip({ count: 5, windowStartMs: start, windowEndMs: start + 4 * hour, pattern: 'even' });
    expect(plan).toEqual([0, 1, 2, 3, 4].map((index) => start + index * hour));
  });

  it('puts a single even timestamp at windowStart', () => {
    expect(planDrip({ count: 1, windowStartMs: start, windowEndMs: start + hour, pattern: 'even' })).toEqual([
      start,
    ]);
  });

  it('gives the same random plan for the same seed and another for another seed', () => {
    const input = {
      count: 20,
      windowStartMs: start,
      windowEndMs: start + 24 * hour,
      pattern: 'random' as const,
    };
    const a = planDrip({ ...input, seed: 'launch' });
    expect(planDrip({ ...input, seed: 'launch' })).toEqual(a);
    expect(planDrip({ ...input, seed: 'other' })).not.toEqual(a);
    expect(planDrip({ ...input, seed: 7 })).toEqual(planDrip({ ...input, seed: 7 }));
  });

  it('keeps random timestamps inside the window, ascending and minSpacingMs apart', () => {
    for (const seed of [1, 2, 3, 'x', 'y']) {
      const plan = planDrip({
        count: 50,
        windowStartMs: start,
        windowEndMs: start + 10 * hour,
        pattern: 'random',
        minSpacingMs: 10 * 60_000,
        seed,
      });
      expect(plan).toHaveLength(50);
      expect(Math.min(...plan)).toBeGreaterThanOrEqual(start);
      expect(Math.max(...plan)).toBeLessThanOrEqual(start + 10 * hour);
      for (const gap of gaps(plan)) expect(gap).toBeGreaterThanOrEqual(10 * 60_000);
    }
  });

  it('fills a window exactly when the spacing leaves no room (random)', () => {
    const plan = planDrip({
      count: 3,
      windowStartMs: start,
      windowEndMs: start + 2000,
      pattern: 'random',
      minSpacingMs: 1000,
    });
    expect(plan).toEqual([start, start + 1000, start + 2000]);
  });

  it('moves jittered timestamps at most maxJitterMs from their even slot', () => {
    const plan = planDrip({
      count: 10,
      windowStartMs: start,
      windowEndMs: start + 9 * hour,
      pattern: 'jittered',
      maxJitterMs: 60_000,
      seed: 42,
    });
    plan.forEach((value, index) => {
      expect(Math.abs(value - (start + index * hour))).toBeLessThanOrEqual(60_000);
      expect(value).toBeGreaterThanOrEqual(start);
      expect(value).toBeLessThanOrEqual(start + 9 * hour);
    });
    expect(plan.some((value, index) => value !== start + index * hour)).toBe(true);
  });

  it('bounds jitter so neighbours stay minSpacingMs apart', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const plan = planDrip({
        count: 30,
        windowStartMs: start,
        windowEndMs: start + 30 * 1000,
        pattern: 'jittered',
        maxJitterMs: 10_000,
        minSpacingMs: 800,
        seed,
      });
      for (const gap of gaps(plan)) expect(gap).toBeGreaterThanOrEqual(800);
    }
  });

  it('refuses a spacing that does not fit the window (400 business_rule)', () => {
    expect(() =>
      planDrip({
        count: 5,
        windowStartMs: start,
        windowEndMs: start + 1000,
        pattern: 'even',
        minSpacingMs: 300,
      }),
    ).toThrowError(expect.objectContaining({ code: 'business_rule', status: 400 }));
  });

  it('refuses an inverted window and a count below one', () => {
    expect(() =>
      planDrip({ count: 2, windowStartMs: start, windowEndMs: start - 1, pattern: 'even' }),
    ).toThrow(/window/);
    expect(() =>
      planDrip({ count: 0, windowStartMs: start, windowEndMs: start + 1, pattern: 'even' }),
    ).toThrow();
  });
});
