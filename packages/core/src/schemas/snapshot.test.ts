import { describe, expect, it } from 'vitest';
import { SiteSnapshot } from './snapshot';

const snapshot = {
  format: 'trellis-snapshot',
  version: 1,
  site: {
    id: 'site:acme',
    name: 'Acme',
    slug: 'acme',
    graphName: '3f2b9c1e-8d4a-4e7b-9a51-0c6d2f8e7a10',
    searchEmission: 'bm25',
    createdAt: '2026-06-14T10:00:00Z',
  },
  types: [
    {
      name: 'movie',
      label: 'Movie',
      nodeLabel: 'Movie',
      keyField: 'slug',
      fields: [{ name: 'title', type: 'string', required: true }],
      relationships: [{ name: 'actors', edgeLabel: 'ACTED_IN', target: 'person' }],
      routePattern: '/films/{slug}/',
    },
  ],
  items: [
    {
      id: 'movie:alien',
      type: 'movie',
      fields: { title: 'Alien' },
      version: 2,
      hash: 'sha256:00ff',
      status: 'published',
      publishedEnvs: ['prod'],
    },
  ],
  edges: [{ from: 'person:ripley', edge: 'ACTED_IN', to: 'movie:alien' }],
  templates: [{ name: 'movie', content: '<h1>{{ item.fields.title }}</h1>', version: 1, boundType: 'movie' }],
  transforms: [
    {
      id: 'upper',
      name: 'Upper',
      event: 'beforeRender',
      kind: 'set-field',
      field: 'title',
      value: 'X',
      enabled: true,
      order: 0,
    },
  ],
  routes: [{ slug: 'about', path: '/about/', kind: 'page', template: 'page', enabled: true }],
  views: [
    {
      name: 'latest',
      path: '/latest/',
      template: 'list',
      paginate: { type: 'movie', size: 10 },
      enabled: true,
    },
  ],
  exportedAt: '2026-06-14T10:00:00Z',
};

describe('SiteSnapshot', () => {
  it('accepts a whole snapshot', () => {
    expect(SiteSnapshot.parse(snapshot)).toEqual(snapshot);
  });

  it('rejects another format or version', () => {
    expect(SiteSnapshot.safeParse({ ...snapshot, format: 'other' }).success).toBe(false);
    expect(SiteSnapshot.safeParse({ ...snapshot, version: 2 }).success).toBe(false);
  });

  it('needs the version, hash, status and publishedEnvs of every item', () => {
    for (const key of ['version', 'hash', 'status', 'publishedEnvs']) {
      const { [key]: _omitted, ...item } = snapshot.items[0] as Record<string, unknown>;
      expect(SiteSnapshot.safeParse({ ...snapshot, items: [item] }).success, key).toBe(false);
    }
  });

  it('rejects edges with lowercase labels', () => {
    const edges = [{ from: 'person:ripley', edge: 'acted_in', to: 'movie:alien' }];
    expect(SiteSnapshot.safeParse({ ...snapshot, edges }).success).toBe(false);
  });
});
