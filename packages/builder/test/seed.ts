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
