/** A PRNG: each call gives a float in [0, 1). */
export type RandomSource = () => number;

/** A 32-bit seed from a number or a string (FNV-1a over the string's UTF-16 units). */
function seed32(seed: number | string): number {
  if (typeof seed === 'number') return (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index += 1) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A seeded PRNG (mulberry32): the same seed always gives the same sequence, on every
 * platform, so a drip schedule can be previewed and then scheduled identically.
 */
export function seededRandom(seed: number | string): RandomSource {
  let state = seed32(seed);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max] (both inclusive) from `random`. */
export function randomInt(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
