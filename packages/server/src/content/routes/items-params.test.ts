import { ContentItemParams } from '@trelliscms/core';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { itemParamsValidator } from './items';

/** Seeded (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

describe('GET /api/content/{type}/{id} params validator', () => {
  it('gives what zod gives for every path: the same value, the same error', () => {
    const seed = 5020;
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[next() % items.length] as T;
    const types = ['place', 'Place', 'p-1', 'p_1', '1place', '-x', '', 'é', 'x'.repeat(64), 'x'.repeat(65)];
    const slugs = ['place-42', 'a', ':x', 'a:b', 'a/b', 'a?b', 'a#b', ' a', 'a b', 'é', '', '😀', 'a\n'];
    const route = {
      schema: ContentItemParams,
      method: 'GET',
      url: '/api/content/:type/:id',
      httpPart: 'params',
    };
    const fast = itemParamsValidator(route as never);
    const zod = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
    let valid = 0;
    for (let i = 0; i < 3_000; i += 1) {
      const type = pick(types);
      const idType = next() % 4 === 0 ? pick(types) : type;
      const params = { type, id: next() % 10 === 0 ? pick(slugs) : `${idType}:${pick(slugs)}${pick(slugs)}` };
      const expected = zod(params) as { value?: unknown; error?: unknown };
      const got = fast(params) as { value?: unknown; error?: unknown };
      expect(got, `seed ${seed}: ${JSON.stringify(params)}`).toEqual(expected);
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
      if (expected.value !== undefined) valid += 1;
    }
    expect(valid).toBeGreaterThan(100);
    expect(valid).toBeLessThan(2_900);
  });

  it('leaves every other schema to zod', () => {
    // a pair ContentItemParams accepts, refused by another schema: that schema's answer
    const other = {
      schema: ContentItemParams.refine(() => false),
      method: 'GET',
      url: '/x',
      httpPart: 'params',
    };
    const validate = itemParamsValidator(other as never) as (data: unknown) => { error?: unknown };
    expect(validate({ type: 'a', id: 'a:b' }).error).toBeDefined();
  });
});
