import { type RandomSource, seededRandom } from '@trelliscms/core';

/**
 * The PRNG of a randomised test: seeded from `TRELLIS_TEST_SEED` when set, else from a fresh
 * seed. The seed is logged, so a failing run can be replayed with
 * `TRELLIS_TEST_SEED=<seed> pnpm exec vitest run <file>`.
 */
export function testRandom(name: string): { random: RandomSource; seed: string } {
  const seed = process.env.TRELLIS_TEST_SEED?.trim() || String(Math.floor(Math.random() * 2 ** 31));
  console.info(`[${name}] random seed ${seed} (replay with TRELLIS_TEST_SEED=${seed})`);
  return { random: seededRandom(seed), seed };
}
