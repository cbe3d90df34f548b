import { contentHash } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { itemHash, itemHasher } from './item-hash';

const body = { time: 1_700_000_000_000, blocks: [], version: '1' };

/** Flat and nested fields, key orders, unicode, numbers, and values JSON.stringify writes otherwise. */
const cases: Array<Record<string, unknown>> = [
  {},
  { slug: 'place-1', name: 'Place', population: 12, about: 'x', ok: true, none: null },
  { b: 2, a: 1, skipped: undefined },
  { title: 'Ärger über Öl — 東京 🚀 "quoted" \\ \n', lone: '\ud800', n: -0, big: 1e21, small: 5e-7 },
  { tags: ['b', 'a', null, 3], empty: [] },
  { '10': 'ten', '9': 'nine', a_b: 1, A: 2, _x: 3 },
  { nested: { z: null, a: [1, { y: true, b: undefined }] }, list: [{ k: 1, a: 2 }] },
  { when: new Date(Date.UTC(2024, 0, 2)), tags: [undefined, 'x'] },
];

describe('itemHash', () => {
  it("is core's contentHash of {fields, body} for every kind of fields and body", () => {
    const bodies = [
      body,
      { time: 1, blocks: [{ id: 'blk_1', type: 'text', data: { text: 'x', a: 1 } }], version: '1' },
      null,
      undefined,
    ];
    for (const fields of cases) {
      for (const each of bodies) expect(itemHash(fields, each)).toBe(contentHash({ fields, body: each }));
    }
  });

  it('depends on every value and not on key order', () => {
    expect(itemHash({ a: 1, b: 2 }, body)).toBe(itemHash({ b: 2, a: 1 }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: 2 }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: '1' }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: 1 }, { ...body, time: 2 }));
  });

  it('refuses what JSON cannot represent, as contentHash does', () => {
    expect(() => itemHash({ n: Number.NaN }, body)).toThrow(TypeError);
    expect(() => itemHash({ list: [Number.POSITIVE_INFINITY] }, body)).toThrow(TypeError);
  });
});

describe('itemHasher', () => {
  it('hashes many fields with one shared body exactly as itemHash', () => {
    const hashOf = itemHasher(body);
    for (const fields of cases) expect(hashOf(fields)).toBe(itemHash(fields, body));
  });
});
