import { describe, expect, it } from 'vitest';
import { testSeed } from '../../test/seed';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import type { ListQuery } from '../source/content-source';
import { itemHash } from '../source/item-hash';
import { SnapshotSource } from '../source/snapshot-source';
import { ListIndex } from './list-index';

function snapshotOf(items: SnapshotItem[]): Snapshot {
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: {} as Snapshot['site'],
    types: [],
    items,
    edges: [],
    templates: [],
  };
}

/** A small deterministic random source (tests must not be flaky). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('ListIndex', () => {
  it('keeps lists sorted as the source sorts them across edits, and says which pages may differ', () => {
    const next = random(testSeed('list-index.test.ts', 7));
    let items: SnapshotItem[] = Array.from({ length: 300 }, (_, n) => ({
      id: `post:p${n}`,
      type: n % 5 === 0 ? 'page' : 'post',
      fields: { rank: Math.floor(next() * 40), featured: next() < 0.5 },
    }));
    const queries: ListQuery[] = [
      { type: 'post', sort: ['-rank'] },
      { type: 'post', where: [{ field: 'featured', op: '==', value: true }], sort: ['rank', 'id'] },
    ];
    let previous: ListIndex | null = null;
    let before = new Map<string, string>();
    let kept = 0;
    for (let round = 0; round < 40; round++) {
      if (round > 0) {
        // one to three edits: a sort field, a filter field, a type change, a removal or an addition
        items = items.map((item) => ({ ...item }));
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
          const at = Math.floor(next() * items.length);
          const pick = next();
          const item = items[at]!;
          if (pick < 0.4) items[at] = { ...item, fields: { ...item.fields, rank: Math.floor(next() * 40) } };
          else if (pick < 0.6)
            items[at] = { ...item, fields: { ...item.fields, featured: !item.fields.featured } };
          else if (pick < 0.7) items[at] = { ...item, type: item.type === 'post' ? 'page' : 'post' };
          else if (pick < 0.85) items.splice(at, 1);
          else
            items.push({
              id: `post:new${round}-${k}`,
              type: 'post',
              fields: { rank: Math.floor(next() * 40) },
            });
        }
      }
      const source = new SnapshotSource({ snapshot: snapshotOf(items) });
      const now = new Map(items.map((item) => [item.id, `${item.type}|${itemHash(item)}`]));
      const changed = new Set<string>();
      const changedTypes = new Set<string>();
      for (const [id, sig] of now) {
        if (before.get(id) === sig) continue;
        changed.add(id);
        changedTypes.add(sig.split('|')[0]!);
        if (before.has(id)) changedTypes.add(before.get(id)!.split('|')[0]!);
      }
      for (const [id, sig] of before) {
        if (now.has(id)) continue;
        changed.add(id);
        changedTypes.add(sig.split('|')[0]!);
      }
      const index: ListIndex = new ListIndex({ source, previous: previous?.current, changed, changedTypes });
      for (const query of queries) {
        const ids = index.sortedIds(query);
        expect(ids).toEqual(source.list(query).items.map((item) => item.id));
        const old = previous?.current.get(JSON.stringify([query.type, query.where ?? [], query.sort ?? []]));
        for (let offset = 0; offset < ids.length; offset += 10) {
          const page = { ...query, offset, limit: 10 };
          if (old && !index.pageMayDiffer(page)) {
            expect(ids.slice(offset, offset + 10)).toEqual(old.ids.slice(offset, offset + 10));
            expect(ids.slice(offset, offset + 10).some((id) => changed.has(id))).toBe(false);
            kept++;
          }
        }
      }
      previous = index;
      before = now;
    }
    // pages were recognised as unchanged (the check above ran)
    expect(kept).toBeGreaterThan(100);
  });
});
