import { seededRandom } from '@trelliscms/core';

/**
 * The seed of a randomised test: `TRELLIS_TEST_SEED` when set, else the test's own default.
 * Logged, so a failing run can be repeated with the same seed.
 */
export function testSeed(name: string, fallback: number): number {
  const given = process.env.TRELLIS_TEST_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) : fallback;
  if (!Number.isInteger(seed)) throw new Error(`TRELLIS_TEST_SEED must be an integer, not "${given}"`);
  console.info(`${name}: seed ${seed} (repeat with TRELLIS_TEST_SEED=${seed})`);
  return seed;
}

/**
 * A small seeded PRNG: numbers in [0, 1), the same sequence for the same seed. It is core's
 * `seededRandom` (mulberry32) started from the state `seed` itself: core mixes a number seed
 * with 0x9e3779b9 first, so the seed given here is mixed back, and every test keeps the inputs
 * it generated before.
 */
export function prng(seed: number): () => number {
  return seededRandom((seed ^ 0x9e3779b9) | 0);
}
