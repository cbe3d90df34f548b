import { contentHash } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { itemHash } from './item-repository';

describe('itemHash', () => {
  it("is core's contentHash of {fields, body}, whatever the key order, unicode included", () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [{}, { time: 0, blocks: [], version: '1' }],
      [
        {
          title: 'Ärger über Öl — 東京 🚀',
          n: 1.5,
          tags: ['b', 'a'],
          nested: { z: null, a: [1, { y: true }] },
        },
        {
          time: 1_700_000_000_000,
          blocks: [{ id: 'blk_1', type: 'text', data: { text: 'x' } }],
          version: '1',
        },
      ],
      [{ b: 2, a: 1, skipped: undefined }, null],
    ];
    for (const [fields, body] of cases) {
      expect(itemHash(fields, body)).toBe(contentHash({ fields, body }));
    }
    expect(itemHash({ a: 1, b: 2 }, null)).toBe(itemHash({ b: 2, a: 1 }, null));
    expect(itemHash({ a: 1 }, null)).not.toBe(itemHash({ a: 2 }, null));
  });
});
