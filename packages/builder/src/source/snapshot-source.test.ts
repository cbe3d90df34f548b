import { describe, expect, it } from 'vitest';
import { testSeed } from '../../test/seed';
import { packStore, StoreReader } from '../snapshot/shared-store';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import type { ListQuery } from './content-source';
import { isVisibleIn, type SharedList, SnapshotSource } from './snapshot-source';

/** A source over a snapshot as a render worker makes it: the items and edges in a shared store. */
function storeSource(snapshot: Snapshot, env: string): SnapshotSource {
  const { store } = packStore(snapshot, env, (item) => isVisibleIn(item, env));
  return new SnapshotSource({
    snapshot: { ...snapshot, items: [], edges: [] },
    env,
    store: new StoreReader(store),
  });
}

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
      edge: next() < 0.7 ? 'LINK' : 'OTHER',
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
      // a small page of a long list: its first items without a full sort (ties on rank, broken by id)
      { type: 'post', sort: ['-rank'], limit: 5 },
      { type: 'post', where: [{ field: 'featured', op: '==', value: false }], sort: ['rank'], limit: 12 },
    ];
    const answers = (source: SnapshotSource) => ({
      lists: queries.map((q) => source.list(q)),
      traversals: ['post:p1', 'post:p7', 'post:p30', 'post:p210'].flatMap((from) => [
        source.traverse({ from, edge: '*', direction: 'both', depth: 2 }),
        source.traverse({ from, edge: 'LINK', direction: 'out', depth: 3 }),
        source.traverse({ from, edge: 'OTHER', direction: 'in', depth: 1, limit: 2 }),
      ]),
      found: ['post:p3', 'post:p150', 'post:p219', 'nope'].map((id) => source.item(id)),
      types: ['post', 'page'].map((type) =>
        source
          .itemsOfType(type)
          .map((i) => i.id)
          .sort(),
      ),
    });
    for (const [env, seeded, shared] of [
      ['dev', false, false],
      ['prod', false, false],
      ['dev', true, false],
      // a render worker's source: the items and edges in a shared store, changes held by the source
      ['dev', false, true],
      ['prod', true, true],
    ] as const) {
      const kept = shared
        ? storeSource(snapshotOf(items), env)
        : new SnapshotSource({ snapshot: snapshotOf(items), env });
      if (shared)
        expect(answers(kept), `${env} store`).toEqual(
          answers(new SnapshotSource({ snapshot: snapshotOf(items), env })),
        );
      if (seeded) {
        // the lists sorted by another source over the same snapshot (as a render worker takes the build's)
        const planner = new SnapshotSource({ snapshot: snapshotOf(items), env });
        for (const q of queries) planner.list({ ...q, limit: undefined, offset: undefined });
        kept.seedLists(planner.sharedLists());
      }
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
        expect(answers(kept), `${env}${shared ? ' store' : ''} round ${round}`).toEqual(
          answers(new SnapshotSource({ snapshot, env })),
        );
      }
    }
  });
});

describe('SnapshotSource.traverse over a shared store', () => {
  it('walks the same neighbours in the same order as over the snapshot, limits and depths included', () => {
    const next = random(testSeed('snapshot-source.test.ts traverse', 23));
    // ids 0..119 are items (some hidden in prod), edges also reach ids of no item (120..139)
    const items: SnapshotItem[] = Array.from({ length: 120 }, (_, n) => ({
      id: `post:p${n}`,
      type: 'post',
      fields: { n },
      publishedEnvs: next() < 0.75 ? ['prod'] : [],
    }));
    const labels = ['LINK', 'OTHER', 'TAGGED'];
    const edges = Array.from({ length: 500 }, () => ({
      from: `post:p${Math.floor(next() * 140)}`,
      edge: labels[Math.floor(next() * labels.length)]!,
      to: `post:p${Math.floor(next() * 140)}`,
    }));
    // a self edge and a duplicate edge
    edges.push({ from: 'post:p1', edge: 'LINK', to: 'post:p1' }, { ...edges[0]! });
    const snapshot: Snapshot = {
      format: 'trellis-snapshot',
      version: 1,
      site: {} as Snapshot['site'],
      types: [],
      items,
      edges,
      templates: [],
    };
    const fromStore: string[] = [];
    const fromSnapshot: string[] = [];
    for (const env of ['dev', 'prod']) {
      const shared = storeSource(snapshot, env);
      const plain = new SnapshotSource({ snapshot, env });
      for (let n = 0; n < 145; n++) {
        const from = `post:p${n}`;
        for (const edge of ['*', 'LINK', 'TAGGED', 'NONE'])
          for (const direction of ['out', 'in', 'both'] as const)
            for (const depth of [1, 2, 3])
              for (const limit of [undefined, 0, 1, 3, 50]) {
                const query = { from, edge, direction, depth, ...(limit === undefined ? {} : { limit }) };
                const walk = (source: SnapshotSource) =>
                  `${JSON.stringify({ env, ...query })} ${source
                    .traverse(query)
                    .map((item) => item.id)
                    .join(' ')}`;
                fromStore.push(walk(shared));
                fromSnapshot.push(walk(plain));
              }
      }
    }
    expect(fromStore.length).toBe(2 * 145 * 4 * 3 * 3 * 5);
    expect(fromStore).toEqual(fromSnapshot);
  });
});

describe('SnapshotSource lists shared between sources', () => {
  const snapshotOf = (items: SnapshotItem[]): Snapshot => ({
    format: 'trellis-snapshot',
    version: 1,
    site: {} as Snapshot['site'],
    types: [],
    items,
    edges: [],
    templates: [],
  });
  const items: SnapshotItem[] = Array.from({ length: 50 }, (_, n) => ({
    id: `post:p${n}`,
    type: n % 10 === 0 ? 'page' : 'post',
    fields: { rank: (n * 7) % 13 },
  }));

  it('gives its sorted lists as positions in shared memory, which another source answers from', () => {
    const planner = new SnapshotSource({ snapshot: snapshotOf(items) });
    planner.list({ type: 'post', sort: ['-rank'] });
    planner.list({ type: 'post', sort: ['-rank'], limit: 3 }); // answered from the full list: nothing new
    const lists = planner.sharedLists();
    expect(lists).toHaveLength(1);
    expect(lists[0]!.positions.buffer).toBeInstanceOf(SharedArrayBuffer);
    const fresh = new SnapshotSource({ snapshot: snapshotOf(items) });
    const seeded = new SnapshotSource({ snapshot: snapshotOf(items) });
    seeded.seedLists(lists);
    for (const page of [{}, { limit: 4 }, { offset: 10, limit: 7 }, { offset: 40 }]) {
      const query: ListQuery = { type: 'post', sort: ['-rank'], ...page };
      expect(seeded.list(query)).toEqual(fresh.list(query));
    }
  });

  it('answers from a seeded list without sorting again, and leaves out one that does not fit', () => {
    const count = items.filter((item) => item.type === 'post').length;
    const reversed = Int32Array.from({ length: count }, (_, i) => count - 1 - i);
    const seeded = new SnapshotSource({ snapshot: snapshotOf(items) });
    const lists: SharedList[] = [
      { type: 'post', where: [], sort: ['rank'], positions: reversed },
      { type: 'page', where: [], sort: ['rank'], positions: Int32Array.from([0, 1, 99]) },
    ];
    seeded.seedLists(lists);
    // the seeded order is taken as it is (here, on purpose, not the sort's order)
    expect(seeded.list({ type: 'post', sort: ['rank'], limit: 2 }).items.map((item) => item.id)).toEqual([
      'post:p49',
      'post:p48',
    ]);
    const fresh = new SnapshotSource({ snapshot: snapshotOf(items) });
    expect(seeded.list({ type: 'page', sort: ['rank'] })).toEqual(
      fresh.list({ type: 'page', sort: ['rank'] }),
    );
  });
});
