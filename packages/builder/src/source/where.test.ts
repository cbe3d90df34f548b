import { describe, expect, it } from 'vitest';
import { testSeed } from '../../test/seed';
import type { SnapshotItem } from '../snapshot/types';
import { sortItems, topItems } from './where';

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('topItems', () => {
  it('gives the first items of sortItems, ties and missing values included', () => {
    const next = random(testSeed('where.test.ts', 20));
    const zones = ['Z', '+02:00', '-0500', ''];
    // few distinct instants (ties broken by id), the same instant written in several zones, missing values
    const dateOf = () => {
      if (next() < 0.1) return undefined;
      const hour = 10 + Math.floor(next() * 4);
      const zone = zones[Math.floor(next() * zones.length)]!;
      return `2026-0${1 + Math.floor(next() * 3)}-1${Math.floor(next() * 3)}T${hour}:00:00${zone}`;
    };
    const items: SnapshotItem[] = Array.from({ length: 600 }, (_, n) => ({
      id: `post:p${Math.floor(next() * 1e6)}-${n}`,
      type: 'post',
      fields: {
        date: dateOf(),
        rank: next() < 0.1 ? null : Math.floor(next() * 10),
        title: next() < 0.2 ? 'not a date' : `t${Math.floor(next() * 50)}`,
      },
    }));
    for (const sort of [['-date'], ['date'], ['rank', '-date'], ['-title'], ['-rank', 'title'], []]) {
      const sorted = sortItems(items, sort).map((item) => item.id);
      for (const count of [0, 1, 3, 10, 57, 599, 600, 700]) {
        const top = topItems(items, sort, count);
        expect(
          top?.map((item) => item.id),
          `${sort.join(',')} first ${count}`,
        ).toEqual(sorted.slice(0, count));
      }
    }
  });

  it('declines a sort field whose values are of different kinds (a full sort decides then)', () => {
    const items: SnapshotItem[] = [1, '2', 3].map((rank, n) => ({
      id: `x:${n}`,
      type: 'x',
      fields: { rank },
    }));
    expect(topItems(items, ['rank'], 2)).toBeNull();
    expect(topItems(items, ['id'], 2)?.map((item) => item.id)).toEqual(['x:0', 'x:1']);
  });
});
