import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

// Engine-direct graph-level keys (docs/permissions.md § Credentials): bound to one site's graph.
let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
});
afterEach(async () => {
  await site.close();
});

const NOTE = {
  name: 'note',
  label: 'Note',
  nodeLabel: 'Note',
  keyField: 'slug',
  fields: [{ name: 'slug', type: 'string', required: true }],
};

describe('graph-level keys (tg_…)', () => {
  it('reach only their own site, with X-Site-Id implied, act with their role and stop when revoked', async () => {
    const other = await site.platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: `Bearer ${site.platform.ownerKey}` },
      payload: { name: 'Other', slug: 'other', starterKit: 'none' },
    });
    expect(other.statusCode).toBe(201);
    const otherId = other.json().id as string;

    const minted = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'etl', role: 'viewer', graph: true },
    });
    expect(minted.statusCode, minted.body).toBe(201);
    const key = minted.json();
    expect(key.secret).toMatch(/^tg_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(key.prefix).toBe(key.secret.slice(0, 15));
    expect(key.graph).toBe(site.graph.name);
    const listed = (await site.request({ method: 'GET', url: '/api/auth/api-keys' })).json();
    expect(listed.find((entry: { id: string }) => entry.id === key.id)).toMatchObject({
      graph: site.graph.name,
    });

    const as = (
      url: string,
      headers: Record<string, string> = {},
      method: 'GET' | 'POST' = 'GET',
      payload?: object,
    ) =>
      site.platform.app.inject({
        method,
        url,
        payload,
        headers: { authorization: `Bearer ${key.secret}`, ...headers },
      });
    // No X-Site-Id: its own site is implied (twice: the second from the access cache).
    for (let i = 0; i < 2; i += 1) expect((await as('/api/types')).statusCode).toBe(200);
    expect((await as('/api/types', { 'x-site-id': site.siteId })).statusCode).toBe(200);
    // Another site, even named: refused.
    const foreign = await as('/api/types', { 'x-site-id': otherId });
    expect(foreign.statusCode).toBe(403);
    expect((await as(`/api/sites/${otherId}`)).statusCode).toBe(403);
    // Platform-level routes: refused; the public health is not.
    const platformRoute = await as('/api/access/my-sites');
    expect(platformRoute.statusCode).toBe(403);
    expect(platformRoute.json().code).toBe('forbidden');
    expect((await as('/api/health')).statusCode).toBe(200);
    // Its role: a viewer cannot write.
    expect((await as('/api/types', {}, 'POST', NOTE)).statusCode).toBe(403);
    // Revoked: the next request is refused.
    expect((await site.request({ method: 'DELETE', url: `/api/auth/api-keys/${key.id}` })).statusCode).toBe(
      200,
    );
    const revoked = await as('/api/types');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().code).toBe('invalid_credential');
  });

  it('an editor graph key writes its site; a graph key cannot name other allowed sites', async () => {
    const minted = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'etl', role: 'editor', graph: true },
    });
    const created = await site.platform.app.inject({
      method: 'POST',
      url: '/api/types',
      payload: NOTE,
      headers: { authorization: `Bearer ${minted.json().secret}` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const types = (await site.request({ method: 'GET', url: '/api/types' })).json();
    expect(types.map((type: { name: string }) => type.name)).toContain('note');
    const refused = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'x', role: 'viewer', graph: true, allowedSites: ['site:elsewhere'] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('validation_failed');
  });
});
