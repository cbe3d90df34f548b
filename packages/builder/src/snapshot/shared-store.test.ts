import { describe, expect, it } from 'vitest';
import { isVisibleIn, SnapshotSource } from '../source/snapshot-source';
import { ITEMS_PER_GENERATION, LONG_TEXT_CHARS, packStore, StoreReader } from './shared-store';
import type { Snapshot, SnapshotEdge, SnapshotItem } from './types';

const body = 'b'.repeat(LONG_TEXT_CHARS + 10);
const items: SnapshotItem[] = [
  { id: 'post:a', type: 'post', fields: { title: 'A', body, tags: ['x', 'y'] }, publishedEnvs: ['prod'] },
  { id: 'post:b', type: 'post', fields: { title: 'B' }, publishedEnvs: [] },
  { id: 'tag:x', type: 'tag', fields: { name: 'X' }, publishedEnvs: ['prod'] },
  { id: 'post:c', type: 'post', fields: { title: 'C', n: 3 }, publishedEnvs: ['prod'] },
  // the same id again: the last one visible is the item (as a Map set item by item holds it)
  { id: 'post:b', type: 'post', fields: { title: 'B2' }, publishedEnvs: ['prod'] },
  { id: 'auteur:é', type: 'author', fields: { name: 'Zoë' }, publishedEnvs: ['prod'] },
];
const edges: SnapshotEdge[] = [
  { from: 'post:a', edge: 'TAGGED', to: 'tag:x' },
  { from: 'post:c', edge: 'TAGGED', to: 'tag:x', props: { weight: 2 } },
  { from: 'post:a', edge: 'RELATED', to: 'post:c' },
  { from: 'post:a', edge: 'RELATED', to: 'post:b' },
  { from: 'post:a', edge: 'RELATED', to: 'post:gone' },
  { from: 'post:gone', edge: 'RELATED', to: 'post:a' },
  { from: 'post:c', edge: 'WRITTEN_BY', to: 'auteur:é' },
  { from: 'post:b', edge: 'TAGGED', to: 'tag:x' },
];
const snapshot: Snapshot = {
  format: 'trellis-snapshot',
  version: 1,
  site: { id: 's', name: 'S' },
  types: [
    { name: 'post', fields: [{ name: 'title', type: 'text' }] },
    { name: 'tag', fields: [{ name: 'name', type: 'text' }] },
    { name: 'author', fields: [{ name: 'name', type: 'text' }] },
  ],
  items,
  edges,
  templates: [],
  queries: [
    { name: 'tagged', query: { type: 'post', follow: [{ edge: 'TAGGED', direction: 'out' }] } },
    { name: 'near', query: { type: 'tag', follow: [{ edge: '*', direction: 'both', depth: 2 }] } },
  ],
};

function readerOf(env: string): StoreReader {
  return new StoreReader(packStore(snapshot, env, (item) => isVisibleIn(item, env)).store);
}

describe('the shared store of the render workers', () => {
  it('finds items by id and type as the snapshot has them, in its environment', () => {
    const dev = readerOf('dev');
    const prod = readerOf('prod');
    expect(dev.node('post:c')).toBe(3);
    expect(dev.item(dev.node('post:c'))).toEqual(items[3]);
    expect(dev.node('auteur:é')).toBe(5);
    expect(dev.idAt(5)).toBe('auteur:é');
    expect(dev.node('post:nope')).toBe(-1);
    // an id of an edge's end that is no item is a node, not an item
    expect(dev.node('post:gone')).toBeGreaterThanOrEqual(items.length);
    expect(dev.visible(dev.node('post:gone'))).toBe(false);
    // duplicates: the last visible one
    expect(dev.item(dev.node('post:b')).fields.title).toBe('B2');
    expect(prod.item(prod.node('post:b')).fields.title).toBe('B2');
    expect([...dev.positionsOfType('post')]).toEqual([0, 1, 3, 4]);
    expect([...prod.positionsOfType('post')]).toEqual([0, 3, 4]);
    expect([...prod.positionsOfType('author')]).toEqual([5]);
    expect([...prod.positionsOfType('nope')]).toEqual([]);
    expect(prod.types().sort()).toEqual(['author', 'post', 'tag']);
  });

  it('keeps each node’s edges in snapshot order, both ways', () => {
    const store = readerOf('dev');
    const named = (id: string, direction: 'out' | 'in') => {
      const { nodes, labels } = store.edges(store.node(id), direction);
      return Array.from(nodes, (node, i) => `${store.labels[labels[i]!]} ${store.idAt(node)}`);
    };
    const expected = (id: string, direction: 'out' | 'in') =>
      edges
        .filter((edge) => (direction === 'out' ? edge.from : edge.to) === id)
        .map((edge) => `${edge.edge} ${direction === 'out' ? edge.to : edge.from}`);
    for (const id of ['post:a', 'post:b', 'post:c', 'tag:x', 'auteur:é', 'post:gone'])
      for (const direction of ['out', 'in'] as const)
        expect(named(id, direction)).toEqual(expected(id, direction));
    expect(store.edges(-1, 'out').nodes).toHaveLength(0);
  });

  it('reads a record twice as equal values, and a change to one read stays in it', () => {
    const store = readerOf('dev');
    const first = store.read(0);
    const second = store.read(0);
    expect(second).toEqual(first);
    expect(first).toEqual(items[0]);
    expect(first.fields.body).toBe(body);
    expect(first).not.toBe(second);
    (first.fields as Record<string, unknown>).title = 'changed';
    (first.fields.tags as string[]).push('z');
    first.fields.body = 'short';
    expect(second.fields).toEqual(items[0]!.fields);
    expect(store.read(0)).toEqual(items[0]);
    // the long value stays in shared memory: JSON and spreads see it
    expect(JSON.parse(JSON.stringify(store.read(0)))).toEqual(items[0]);
  });

  it('gives the same object for an item while it is held', () => {
    const store = readerOf('dev');
    const held = store.item(2);
    for (let i = 0; i < 5; i++) store.item(i);
    expect(store.item(2)).toBe(held);
  });

  it('gives the same object for an item held across many generations of reads, and holds a bounded number', () => {
    // more items than two generations of the reader's identity cache hold
    const many: SnapshotItem[] = Array.from({ length: 3 * ITEMS_PER_GENERATION + 7 }, (_, i) => ({
      id: `post:${i}`,
      type: 'post',
      fields: { title: `T${i}`, body: `${body}${i}` },
      publishedEnvs: ['prod'],
    }));
    const store = new StoreReader(packStore({ items: many, edges: [] }, 'prod', () => true).store);
    const held = [store.item(0), store.item(1), store.item(2)];
    // every item read twice over, in an order that turns the generations many times
    for (let round = 0; round < 2; round++)
      for (let i = 3; i < many.length; i++) {
        const item = store.item(i);
        expect(item.id).toBe(`post:${i}`);
        expect(store.item(i)).toBe(item);
      }
    expect(store.item(0)).toBe(held[0]);
    expect(store.item(1)).toBe(held[1]);
    expect(store.item(2)).toBe(held[2]);
    expect((held[1]!.fields as { body: string }).body).toBe(`${body}1`);
    expect(store.heldItems).toBeLessThanOrEqual(2 * ITEMS_PER_GENERATION);
    // an item read again within a generation is one object whatever else was read between
    const a = store.item(5);
    for (let i = 100; i < 100 + ITEMS_PER_GENERATION - 1; i++) store.item(i);
    expect(store.item(5)).toBe(a);
  });

  it('makes a worker’s source answer as a source over the snapshot does', () => {
    for (const env of ['dev', 'prod']) {
      const plain = new SnapshotSource({ snapshot, env });
      const shared = new SnapshotSource({
        snapshot: { ...snapshot, items: [], edges: [] },
        env,
        store: readerOf(env),
      });
      for (const id of ['post:a', 'post:b', 'post:c', 'tag:x', 'auteur:é', 'post:gone'])
        expect(shared.item(id), `${env} ${id}`).toEqual(plain.item(id));
      for (const type of ['post', 'tag', 'author'])
        expect(shared.itemsOfType(type), `${env} ${type}`).toEqual(plain.itemsOfType(type));
      for (const from of ['post:a', 'post:b', 'post:c', 'tag:x', 'auteur:é', 'post:gone'])
        for (const direction of ['out', 'in', 'both'] as const)
          for (const edge of ['*', 'TAGGED', 'RELATED'])
            expect(
              shared.traverse({ from, edge, direction, depth: 2 }),
              `${env} ${from} ${direction}`,
            ).toEqual(plain.traverse({ from, edge, direction, depth: 2 }));
      // a traversal with a limit stops there: the first items of the one without
      for (const source of [plain, shared])
        for (const from of ['post:a', 'post:c', 'tag:x'])
          for (const direction of ['out', 'in', 'both'] as const)
            for (const depth of [1, 2, 3]) {
              const all = source.traverse({ from, edge: '*', direction, depth });
              for (let limit = 1; limit <= all.length + 1; limit++)
                expect(
                  source.traverse({ from, edge: '*', direction, depth, limit }),
                  `${env} ${from} ${direction} ${depth} ${limit}`,
                ).toEqual(all.slice(0, limit));
            }
      for (const name of ['tagged', 'near']) {
        const result = shared.runQuery({ name });
        expect(result.total, `${env} ${name}`).toBeGreaterThan(0);
        expect(result, `${env} ${name}`).toEqual(plain.runQuery({ name }));
      }
      expect(shared.list({ type: 'post', sort: ['-title'], limit: 2 })).toEqual(
        plain.list({ type: 'post', sort: ['-title'], limit: 2 }),
      );
    }
    expect(() => new SnapshotSource({ snapshot, env: 'prod', store: readerOf('dev') })).toThrow(
      /environment dev/,
    );
  });
});
