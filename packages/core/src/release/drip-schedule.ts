import { TrellisError } from '../errors';
import { randomInt, seededRandom } from './seeded-random';

export type DripPatternName = 'even' | 'random' | 'jittered';

export interface DripPlanInput {
  /** How many timestamps to plan (at least 1). */
  count: number;
  /** The window's bounds (ms since the epoch); every timestamp falls inside them, both included. */
  windowStartMs: number;
  windowEndMs: number;
  pattern: DripPatternName;
  /** `jittered`: the most a timestamp moves from its even slot (default: as far as spacing allows). */
  maxJitterMs?: number;
  /** The least time between two consecutive timestamps (default 0). */
  minSpacingMs?: number;
  /** Seed of `random` and `jittered` (default 0): the same seed gives the same plan. */
  seed?: number | string;
}

/**
 * Plans `count` timestamps (ms, ascending, whole milliseconds) inside the window:
 * - `even`: the first at windowStart, the last at windowEnd, equal gaps between.
 * - `random`: uniformly random, yet at least `minSpacingMs` apart (drawn in the window
 *   shrunk by the spacing, then spread back out), so every valid plan is equally likely.
 * - `jittered`: the even slots, each moved by up to ±`maxJitterMs`, bounded so that
 *   neighbours stay `minSpacingMs` apart and all stay inside the window.
 *
 * Throws 400 `business_rule` when `count` timestamps `minSpacingMs` apart do not fit.
 */
export function planDrip(input: DripPlanInput): number[] {
  const { count, windowStartMs: start, windowEndMs: end, pattern } = input;
  const minSpacing = input.minSpacingMs ?? 0;
  if (!Number.isInteger(count) || count < 1) {
    throw TrellisError.of('business_rule', { detail: 'A drip needs at least one timestamp.' });
  }
  const span = end - start;
  if (!Number.isFinite(span) || span < 0) {
    throw TrellisError.of('business_rule', { detail: 'The drip window must end after it starts.' });
  }
  if ((count - 1) * minSpacing > span) {
    throw TrellisError.of('business_rule', {
      detail: `${count} timestamps ${minSpacing} ms apart need a window of at least ${(count - 1) * minSpacing} ms; this one is ${span} ms. Widen the window, lower minSpacingMs or plan fewer.`,
    });
  }
  const random = seededRandom(input.seed ?? 0);
  const slot = (index: number) => (count === 1 ? 0 : Math.floor((index * span) / (count - 1)));
  let offsets: number[];
  switch (pattern) {
    case 'even':
      offsets = Array.from({ length: count }, (_, index) => slot(index));
      break;
    case 'random': {
      const free = span - (count - 1) * minSpacing;
      offsets = Array.from({ length: count }, () => randomInt(random, 0, free))
        .sort((a, b) => a - b)
        .map((offset, index) => offset + index * minSpacing);
      break;
    }
    case 'jittered': {
      const gap = count === 1 ? span : Math.floor(span / (count - 1));
      // Two neighbours moving towards each other by `bound` each keep `minSpacing` between them.
      const bound = count === 1 ? span : Math.floor((gap - minSpacing) / 2);
      const jitter = Math.max(0, Math.min(input.maxJitterMs ?? bound, bound));
      offsets = Array.from({ length: count }, (_, index) => {
        const moved = slot(index) + randomInt(random, count === 1 ? 0 : -jitter, jitter);
        return Math.min(span, Math.max(0, moved));
      });
      break;
    }
  }
  return offsets.map((offset) => start + offset);
}
