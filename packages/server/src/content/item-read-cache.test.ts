import { describe, expect, it } from 'vitest';
import { ItemReadCache } from './item-read-cache';

const key = { graphName: 'g1', typeName: 'note', id: 'note:a' };

describe('ItemReadCache', () => {
  it('serves an entry until its graph is written, and only that graph', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000 });
    let loads = 0;
    const load = async () => ({ body: `{"n":${++loads}}`, version: loads });
    expect(await cache.read(key, load)).toEqual({ body: '{"n":1}', version: 1 });
    expect(await cache.read(key, load)).toMatchObject({ version: 1 });
    cache.graphWritten('g2');
    expect(await cache.read(key, load)).toMatchObject({ version: 1 });
    cache.graphWritten('g1');
    expect(await cache.read(key, load)).toMatchObject({ version: 2 });
    expect(await cache.read({ ...key, typeName: 'other' }, load)).toMatchObject({ version: 3 });
  });

  it('does not keep a read that was in flight while its graph was written', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000 });
    let release: () => void = () => {};
    const slow = cache.read(
      key,
      () =>
        new Promise((resolve) => {
          release = () => resolve({ body: 'old', version: 1 });
        }),
    );
    cache.graphWritten('g1');
    release();
    expect((await slow).body).toBe('old');
    expect((await cache.read(key, async () => ({ body: 'new', version: 2 }))).body).toBe('new');
  });

  it('never caches with ttlMs 0, nor a failed read', async () => {
    const off = new ItemReadCache({ ttlMs: 0 });
    let loads = 0;
    const load = async () => ({ body: '{}', version: ++loads });
    await off.read(key, load);
    await off.read(key, load);
    expect(loads).toBe(2);
    const on = new ItemReadCache({ ttlMs: 60_000 });
    await expect(on.read(key, async () => Promise.reject(new Error('404')))).rejects.toThrow('404');
    expect((await on.read(key, load)).version).toBe(3);
  });

  it('hands a prefetched read to its own request once, for its item and graph, unless the graph was written since', async () => {
    const cache = new ItemReadCache({ ttlMs: 0 });
    const node = { labels: ['Note'], propsJson: '{}', edges: [] };
    let started = 0;
    const start = async () => {
      started += 1;
      return node;
    };
    const one = {};
    const two = {};
    cache.prefetch(one, key, start);
    cache.prefetch(two, key, start);
    expect(started).toBe(2);
    // Another request, another item or another graph (the access check settled elsewhere): none.
    expect(cache.takePrefetched({}, 'g1', 'note:a')).toBeUndefined();
    expect(cache.takePrefetched(two, 'g2', 'note:a')).toBeUndefined();
    expect(await cache.takePrefetched(one, 'g1', 'note:a')).toBe(node);
    expect(cache.takePrefetched(one, 'g1', 'note:a')).toBeUndefined();
    // A write to the graph since the read was asked for: read afresh.
    const three = {};
    cache.prefetch(three, key, start);
    cache.graphWritten('g1');
    expect(cache.takePrefetched(three, 'g1', 'note:a')).toBeUndefined();
    // A failed prefetch is no unhandled rejection; the request's read handles it.
    const four = {};
    cache.prefetch(four, key, () => Promise.reject(new Error('engine down')));
    await expect(cache.takePrefetched(four, 'g1', 'note:a')).rejects.toThrow('engine down');
  });

  it('starts no prefetch for an item whose answer it holds', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000 });
    await cache.read(key, async () => ({ body: '{}', version: 1 }));
    let started = 0;
    const request = {};
    cache.prefetch(request, key, async () => {
      started += 1;
      return null;
    });
    expect(started).toBe(0);
    expect(cache.takePrefetched(request, 'g1', 'note:a')).toBeUndefined();
    cache.graphWritten('g1');
    cache.prefetch(request, key, async () => {
      started += 1;
      return null;
    });
    expect(started).toBe(1);
  });

  it('peek answers a kept read without a promise, and nothing once its graph was written or with the cache off', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000 });
    expect(cache.peek(key)).toBeUndefined();
    let loads = 0;
    const load = async () => ({ body: `{"n":${++loads}}`, version: loads });
    expect(await cache.load(key, load)).toEqual({ body: '{"n":1}', version: 1 });
    expect(cache.peek(key)).toMatchObject({ body: '{"n":1}', version: 1 });
    expect(cache.peek({ ...key, id: 'note:b' })).toBeUndefined();
    cache.graphWritten('g1');
    expect(cache.peek(key)).toBeUndefined();
    expect(await cache.read(key, load)).toEqual({ body: '{"n":2}', version: 2 });
    expect(cache.peek(key)).toMatchObject({ version: 2 });
    const off = new ItemReadCache({ ttlMs: 0 });
    await off.load(key, load);
    expect(off.peek(key)).toBeUndefined();
    expect(loads).toBe(3);
  });
});
