import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';
import { contentHash, sha256Hex } from './content-hash';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes undefined array slots as null, like JSON.stringify', () => {
    expect(canonicalJson([1, undefined, 'x'])).toBe('[1,null,"x"]');
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/cycle/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('contentHash', () => {
  it('does not depend on key order', () => {
    const one = { title: 'Héllo ✓', tags: ['a', 'b'], meta: { x: 1, y: [true, null] } };
    const two = { meta: { y: [true, null], x: 1 }, tags: ['a', 'b'], title: 'Héllo ✓' };
    expect(contentHash(one)).toBe(contentHash(two));
  });

  it('changes when a value changes, and when array order changes', () => {
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
    expect(contentHash({ a: [1, 2] })).not.toBe(contentHash({ a: [2, 1] }));
  });

  it('is sha256 of the canonical JSON', () => {
    // sha256("abc"), a published test vector
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(contentHash({ b: 2, a: 1 })).toBe(`sha256:${sha256Hex('{"a":1,"b":2}')}`);
  });
});
