import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Session } from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { ensureOwnerKey } from '../../../test/helpers/neo4j-owner-key';
import { startPeerApp, TEST_OWNER_KEY } from '../../../test/helpers/test-platform';
import { createNeo4jEngine } from './index';

// Uncached content reads through the real app on a real Neo4j (skipped without NEO4J_URI): the
// item's read rides in the access epoch's statement (auth/access-epoch.ts `check(alongside)`,
// content/item-read-cache.ts `prefetch`), and what the epoch protects still applies on the
// next request on every server.

const uri = process.env.NEO4J_URI;
const seed = randomBytes(4).toString('hex');
console.log(`neo4j http reads: seed ${seed}`);

const env = {
  CMS_ENGINE: 'neo4j',
  NEO4J_URI: uri ?? 'bolt://127.0.0.1:7687',
  NEO4J_USER: process.env.NEO4J_USER ?? 'neo4j',
  NEO4J_PASSWORD: process.env.NEO4J_PASSWORD ?? 'trellis-test-pw',
  CONTENT_READ_CACHE_MS: '0',
  // Both servers keep their access caches for a minute: only the epoch can make them see a change.
  ACCESS_CACHE_MS: '60000',
};
const engineOf = () =>
  createNeo4jEngine({
    uri: env.NEO4J_URI,
    user: env.NEO4J_USER,
    password: env.NEO4J_PASSWORD,
    edition: 'community',
    auditKey: randomBytes(32),
  });

describe.skipIf(!uri)('uncached content reads on Neo4j (HTTP)', () => {
  let site: ContentTestSite;
  let b: FastifyInstance;

  beforeAll(async () => {
    // A shared Neo4j keeps its platform graph: make sure the test owner key is an owner there.
    const setup = engineOf();
    await setup.init();
    await ensureOwnerKey(setup, TEST_OWNER_KEY);
    await setup.close();
    site = await createContentTestSite({ engine: engineOf, env, slug: `reads-${seed}` });
    await site.createType({
      name: 'place',
      label: 'Place',
      nodeLabel: 'Place',
      keyField: 'slug',
      fields: [
        { name: 'slug', type: 'string', required: true, unique: true },
        { name: 'name', type: 'string', required: true },
      ],
      relationships: [{ name: 'near', edgeLabel: 'NEAR', target: 'place', kind: 'many-to-many' }],
    });
    for (const [slug, near] of [
      ['b', []],
      ['a', ['place:b']],
    ] as const) {
      const created = await site.request({
        method: 'POST',
        url: '/api/content/place',
        payload: { slug, name: `Place ${slug}`, relationships: { near } },
      });
      expect(created.statusCode).toBe(201);
    }
    b = await startPeerApp({ dataDir: site.platform.dataDir, engine: engineOf(), env });
  }, 180_000);

  afterAll(async () => {
    await b?.close();
    if (site) {
      await site.request({ method: 'DELETE', url: `/api/sites/${site.siteId}` });
      await site.close();
    }
  });

  const getA = () => site.request({ method: 'GET', url: '/api/content/place/place:a' });
  const onB = (key: string, url: string) =>
    b.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, 'x-site-id': site.siteId } });

  it('answers an uncached GET of an item with one statement: the item rides with the access epoch', async () => {
    // The first requests fill the access cache (the site, the caller's role) and the type cache.
    expect((await getA()).statusCode).toBe(200);
    expect((await getA()).statusCode).toBe(200);
    const run = vi.spyOn(Session.prototype, 'run');
    try {
      const read = await getA();
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({
        id: 'place:a',
        fields: { name: 'Place a' },
        relationships: { near: ['place:b'] },
      });
      // Without the prefetch: the epoch's statement, then the item's (2).
      expect(run).toHaveBeenCalledTimes(1);
    } finally {
      run.mockRestore();
    }
    // A write through this server, then a read: the read shows it (the prefetch of a graph
    // written since is not used).
    const renamed = await site.request({
      method: 'PATCH',
      url: '/api/content/place/place:a',
      payload: { name: 'Renamed on A' },
    });
    expect(renamed.statusCode).toBe(200);
    expect((await getA()).json().fields.name).toBe('Renamed on A');
  });

  it('applies a revoked key and a change made on another server on the next request', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'reader', role: 'editor' },
    });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json();
    // B caches the key and its access; its uncached GETs prefetch.
    expect((await onB(secret, '/api/content/place/place:b')).statusCode).toBe(200);
    expect((await onB(secret, '/api/content/place/place:b')).statusCode).toBe(200);
    // An item changed on A shows on B's next read.
    const renamed = await site.request({
      method: 'PATCH',
      url: '/api/content/place/place:b',
      payload: { name: 'Changed on A' },
    });
    expect(renamed.statusCode).toBe(200);
    const changed = await onB(secret, '/api/content/place/place:b');
    expect(changed.statusCode).toBe(200);
    expect(changed.json().fields.name).toBe('Changed on A');
    // The key revoked on A: B's next GET is refused, though B cached the key (and read the item
    // alongside the epoch before it knew).
    expect((await site.request({ method: 'DELETE', url: `/api/auth/api-keys/${id}` })).statusCode).toBe(200);
    const refused = await onB(secret, '/api/content/place/place:b');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('invalid_credential');
    expect(refused.body).not.toContain('Changed on A');
  });
});
