import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedEngine } from '../engines/embedded';
import type { Graph, GraphEngine } from '../engines/port';
import { PlatformAccessCache } from './platform-access-cache';

let engine: GraphEngine | undefined;
let dir: string | undefined;
afterEach(async () => {
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function platformGraph(): Promise<Graph> {
  dir = await mkdtemp(join(tmpdir(), 'trellis-access-'));
  engine = createEmbeddedEngine({ dataDir: dir });
  await engine.init();
  const graph = await engine.createGraph('platform');
  await graph.createNode({ id: 'user:u1', labels: ['User'], props: { name: 'One', platformRole: 'admin' } });
  await graph.createNode({ id: 'site:s1', labels: ['Site'], props: { name: 'S', graphName: 'g' } });
  await graph.mergeEdge({ from: 'user:u1', type: 'MEMBER_OF', to: 'site:s1', props: { role: 'editor' } });
  return graph;
}

describe('PlatformAccessCache', () => {
  it('reuses users, sites and memberships until invalidateAll, and never caches what is missing', async () => {
    const graph = await platformGraph();
    const cache = new PlatformAccessCache({ ttlMs: 60_000 });
    expect((await cache.user(graph, 'user:u1'))?.platformRole).toBe('admin');
    expect((await cache.site(graph, 'site:s1'))?.name).toBe('S');
    expect((await cache.membership(graph, { userId: 'user:u1', siteId: 'site:s1' }))?.role).toBe('editor');
    expect(await cache.site(graph, 'site:s2')).toBeNull();

    await graph.updateNode('user:u1', { props: { name: 'One', platformRole: null } });
    await graph.deleteEdge({ from: 'user:u1', type: 'MEMBER_OF', to: 'site:s1' });
    await graph.createNode({ id: 'site:s2', labels: ['Site'], props: { name: 'S2', graphName: 'g2' } });
    // Written behind its back: the cached entries stand (another instance's change)...
    expect((await cache.user(graph, 'user:u1'))?.platformRole).toBe('admin');
    expect((await cache.membership(graph, { userId: 'user:u1', siteId: 'site:s1' }))?.role).toBe('editor');
    // ...but a miss was not cached.
    expect((await cache.site(graph, 'site:s2'))?.name).toBe('S2');
    cache.invalidateAll();
    expect((await cache.user(graph, 'user:u1'))?.platformRole).toBeNull();
    expect(await cache.membership(graph, { userId: 'user:u1', siteId: 'site:s1' })).toBeNull();
  });

  it('does not keep a read that was in flight during a write, and caches nothing with ttlMs 0', async () => {
    const graph = await platformGraph();
    const cache = new PlatformAccessCache({ ttlMs: 60_000 });
    const inFlight = cache.user(graph, 'user:u1');
    cache.invalidateAll();
    await inFlight;
    await graph.updateNode('user:u1', { props: { name: 'Renamed' } });
    expect((await cache.user(graph, 'user:u1'))?.name).toBe('Renamed');

    const off = new PlatformAccessCache({ ttlMs: 0 });
    expect((await off.user(graph, 'user:u1'))?.name).toBe('Renamed');
    await graph.updateNode('user:u1', { props: { name: 'Again' } });
    expect((await off.user(graph, 'user:u1'))?.name).toBe('Again');
  });

  it('keeps a resolved access until a platform write, never past its key expiry, and not when a write overlapped', () => {
    const cache = new PlatformAccessCache({ ttlMs: 60_000 });
    const principal = {
      kind: 'api_key' as const,
      userId: 'user:u1',
      platformRole: null,
      allowedSites: ['site:s1'],
    };
    const access = { principal, site: null, keyExpiresAtMs: null };
    cache.rememberAccess('k1', access, cache.generation);
    expect(cache.resolvedAccess('k1')?.principal.userId).toBe('user:u1');
    expect(cache.resolvedAccess('k2')).toBeUndefined();
    // Entries are frozen: a request cannot change what the next one is served.
    expect(Object.isFrozen(cache.resolvedAccess('k1')?.principal)).toBe(true);

    cache.invalidateAll();
    expect(cache.resolvedAccess('k1')).toBeUndefined();

    // Resolved while a platform write ran: not kept.
    const before = cache.generation;
    cache.invalidateAll();
    cache.rememberAccess('k1', { ...access, principal: { ...principal } }, before);
    expect(cache.resolvedAccess('k1')).toBeUndefined();

    // A key that expires is refused from the cache at its expiry, whatever the TTL.
    cache.rememberAccess(
      'k3',
      { principal: { ...principal }, site: null, keyExpiresAtMs: Date.now() + 50 },
      cache.generation,
    );
    expect(cache.resolvedAccess('k3')).toBeDefined();
    cache.rememberAccess(
      'k4',
      { principal: { ...principal }, site: null, keyExpiresAtMs: Date.now() - 1 },
      cache.generation,
    );
    expect(cache.resolvedAccess('k4')).toBeUndefined();

    const off = new PlatformAccessCache({ ttlMs: 0 });
    off.rememberAccess(
      'k1',
      { principal: { ...principal }, site: null, keyExpiresAtMs: null },
      off.generation,
    );
    expect(off.resolvedAccess('k1')).toBeUndefined();
  });
});
