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

/** A small seeded PRNG (mulberry32): numbers in [0, 1), the same sequence for the same seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
