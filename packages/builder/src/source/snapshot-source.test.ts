import { describe, expect, it } from 'vitest';
import { testSeed } from '../../test/seed';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import type { ListQuery } from './content-source';
import { SnapshotSource } from './snapshot-source';

/** A small deterministic random source (tests must not be flaky). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('SnapshotSource.update', () => {
  it('answers as a new source over the edited snapshot, edit after edit', () => {
    const next = random(testSeed('snapshot-source.test.ts', 11));
    const itemOf = (n: number): SnapshotItem => ({
      id: `post:p${n}`,
      type: next() < 0.2 ? 'page' : 'post',
      fields: { rank: Math.floor(next() * 30), featured: next() < 0.5 },
      publishedEnvs: next() < 0.8 ? ['prod'] : [],
    });
    let items = Array.from({ length: 200 }, (_, n) => itemOf(n));
    const edges = Array.from({ length: 300 }, () => ({
      from: `post:p${Math.floor(next() * 220)}`,
      edge: 'LINK',
      to: `post:p${Math.floor(next() * 220)}`,
    }));
    const snapshotOf = (list: SnapshotItem[]): Snapshot => ({
      format: 'trellis-snapshot',
      version: 1,
      site: {} as Snapshot['site'],
      types: [],
      items: list,
      edges,
      templates: [],
    });
    const queries: ListQuery[] = [
      { type: 'post', sort: ['-rank'] },
      {
        type: 'post',
        where: [{ field: 'featured', op: '==', value: true }],
        sort: ['rank'],
        limit: 7,
        offset: 3,
      },
      { type: 'page', sort: ['rank'] },
    ];
    const answers = (source: SnapshotSource) => ({
      lists: queries.map((q) => source.list(q)),
      traversals: ['post:p1', 'post:p7', 'post:p30'].map((from) =>
        source.traverse({ from, edge: '*', direction: 'both', depth: 2 }),
      ),
      types: ['post', 'page'].map((type) =>
        source
          .itemsOfType(type)
          .map((i) => i.id)
          .sort(),
      ),
    });
    for (const env of ['dev', 'prod']) {
      const kept = new SnapshotSource({ snapshot: snapshotOf(items), env });
      answers(kept);
      for (let round = 0; round < 30; round++) {
        const changed: SnapshotItem[] = [];
        const removed: string[] = [];
        const count = 1 + Math.floor(next() * (round % 5 === 0 ? 40 : 3));
        const byId = new Map(items.map((item) => [item.id, item]));
        for (let k = 0; k < count; k++) {
          const n = Math.floor(next() * 220);
          const id = `post:p${n}`;
          const roll = next();
          if (roll < 0.15 && byId.has(id)) {
            byId.delete(id);
            removed.push(id);
          } else {
            const item = itemOf(n);
            byId.set(id, item);
            changed.push(item);
          }
        }
        items = [...byId.values()];
        const snapshot = snapshotOf(items);
        kept.update(
          snapshot,
          changed.filter((item) => byId.get(item.id) === item),
          removed.filter((id) => !byId.has(id)),
        );
        expect(answers(kept), `${env} round ${round}`).toEqual(
          answers(new SnapshotSource({ snapshot, env })),
        );
      }
    }
  });
});
