import { describe, expect, it } from 'vitest';
import { ApiKeyCache } from './api-key-cache';

describe('ApiKeyCache', () => {
  it('counts hits and misses and does not cache unknown keys', async () => {
    const cache = new ApiKeyCache<{ id: string }>();
    let loads = 0;
    const load = async () => {
      loads += 1;
      return { id: 'a' };
    };
    expect(await cache.get('a', load)).toEqual({ id: 'a' });
    expect(await cache.get('a', load)).toEqual({ id: 'a' });
    expect(await cache.get('nope', async () => null)).toBeNull();
    expect(await cache.get('nope', async () => null)).toBeNull();
    expect(loads).toBe(1);
    expect(cache.stats()).toEqual({
      hits: 1,
      misses: 3,
      evictions: 0,
      invalidations: 0,
      staleServed: 0,
      size: 1,
    });
  });

  it('evicts the least recently used entry past its capacity', async () => {
    const cache = new ApiKeyCache<{ id: string }>({ max: 2 });
    for (const id of ['a', 'b', 'a', 'c']) await cache.get(id, async () => ({ id }));
    const stats = cache.stats();
    expect(stats.evictions).toBe(1);
    expect(stats.size).toBe(2);
    // `b` was the least recently used, so it is gone and loads again; `a` is still cached.
    let reloaded = '';
    await cache.get('b', async () => {
      reloaded = 'b';
      return { id: 'b' };
    });
    expect(reloaded).toBe('b');
  });

  it('drops an entry on invalidate so the next lookup reloads it', async () => {
    const cache = new ApiKeyCache<{ revoked: boolean }>();
    await cache.get('k', async () => ({ revoked: false }));
    cache.invalidate('k');
    cache.invalidate('never-cached');
    expect(await cache.get('k', async () => ({ revoked: true }))).toEqual({ revoked: true });
    expect(cache.stats().invalidations).toBe(1);
  });

  it('serves an expired entry when the lookup fails, and counts it', async () => {
    const cache = new ApiKeyCache<{ id: string }>({ ttlMs: 1 });
    await cache.get('k', async () => ({ id: 'k' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const value = await cache.get('k', async () => {
      throw new Error('engine down');
    });
    expect(value).toEqual({ id: 'k' });
    expect(cache.stats().staleServed).toBe(1);
    await expect(
      cache.get('other', async () => {
        throw new Error('engine down');
      }),
    ).rejects.toThrow('engine down');
  });
});
