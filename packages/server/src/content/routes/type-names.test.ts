import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { toOldLayout } from '../../../test/helpers/old-layout';
import { TEST_OWNER_KEY } from '../../../test/helpers/test-platform';
import { loadConfig } from '../../config';
import { createEmbeddedEngine } from '../../engines/embedded';
import { buildApp } from '../../http/app';
import { saveAsset } from '../../media/media-store';
import { readDataVersion } from '../../migrations/site-data-version';
import { SITE_DATA_VERSION } from '../../migrations/site-migrations';

/**
 * Content type names are free of the server's own nodes: their ids (`~type:…`, `~template:…`,
 * `~asset:…`) cannot equal an item id `<type>:<slug>`, so a movie site can have a `review` type.
 */
let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
});
afterEach(async () => {
  await site.close();
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const typeNamed = (name: string) => ({
  name,
  label: name,
  nodeLabel: `Kind${name[0]?.toUpperCase()}${name.slice(1)}`,
  keyField: 'title',
  fields: [{ name: 'title', type: 'string', required: true }],
});
const post = (url: string, payload: Record<string, unknown>) =>
  site.request({ method: 'POST', url, payload });
const get = (url: string) => site.request({ method: 'GET', url });

describe('content type names', () => {
  it('takes the names internal nodes used to claim, and keeps both apart', async () => {
    const freed = ['review', 'user', 'media', 'asset', 'build', 'query', 'view', 'route', 'locale', 'widget'];
    for (const name of [...freed, 'type', 'template']) {
      const created = await post('/api/types', typeNamed(name));
      expect(created.statusCode, `${name}: ${created.body}`).toBe(201);
    }
    // A template, a view and a media asset beside items whose ids read like theirs.
    expect((await post('/api/templates', { name: 'home', content: '<h1>Home</h1>' })).statusCode).toBe(201);
    const view = await post('/api/views', {
      name: 'home',
      path: '/home/',
      template: 'home',
      paginate: { type: 'review', size: 10 },
    });
    expect(view.statusCode, view.body).toBe(201);
    const { asset } = await saveAsset({
      graph: site.graph,
      dataDir: site.platform.dataDir,
      content: PNG,
      filename: 'poster.png',
      actor: 'test',
      now: new Date(),
    });
    const assetSlug = asset.id.slice('asset:'.length);
    for (const [type, slug] of [
      ['template', 'home'],
      ['view', 'home'],
      ['type', 'review'],
      ['review', 'great-film'],
      ['asset', assetSlug],
    ] as const) {
      const created = await post(`/api/content/${type}`, { id: slug, title: `${type} ${slug}` });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().id).toBe(`${type}:${slug}`);
      expect((await get(`/api/content/${type}/${type}:${slug}`)).json()).toMatchObject({
        fields: { title: `${type} ${slug}` },
      });
    }
    expect((await get('/api/templates/home')).json()).toMatchObject({ content: '<h1>Home</h1>' });
    expect((await get('/api/views/home')).json()).toMatchObject({ path: '/home/' });
    expect((await get('/api/types/review')).json()).toMatchObject({ name: 'review' });
    expect((await get('/api/media')).json()).toEqual([expect.objectContaining({ id: asset.id })]);
    expect((await get('/api/content/asset')).json().map((item: { id: string }) => item.id)).toEqual([
      asset.id,
    ]);
    // An image field still points at the asset, not at the item of the same id.
    const poster = await post('/api/types', {
      ...typeNamed('poster'),
      fields: [
        { name: 'title', type: 'string', required: true },
        { name: 'image', type: 'image' },
      ],
    });
    expect(poster.statusCode, poster.body).toBe(201);
    const withImage = await post('/api/content/poster', { title: 'Noir', image: asset.id });
    expect(withImage.statusCode, withImage.body).toBe(201);
    const missing = await post('/api/content/poster', {
      title: 'Gone',
      image: 'asset:000000000000000000000000',
    });
    expect(missing.statusCode).toBe(400);
  });

  it('still refuses the names the API uses for other ids (release, env, deploy, site)', async () => {
    for (const name of ['release', 'env', 'deploy', 'site', 'Release']) {
      const refused = await post('/api/types', typeNamed(name));
      expect(refused.statusCode, name).toBe(400);
      expect(refused.body).toContain('reserved');
    }
  });

  it('migrates a site graph of the old layout when the server starts', async () => {
    await site.createType(typeNamed('movie'));
    expect((await post('/api/content/movie', { title: 'Vienna nights' })).statusCode).toBe(201);
    expect((await post('/api/templates', { name: 'home', content: '<h1>Home</h1>' })).statusCode).toBe(201);
    await toOldLayout(site.graph);
    expect(await site.graph.getNode('type:movie')).not.toBeNull();
    expect(await readDataVersion(site.graph)).toBe(0);
    // The old index holds every string of the item node, bookkeeping included.
    expect((await site.graph.findNodes({ label: 'KindMovie', q: 'draft' })).total).toBe(1);
    await site.platform.app.close();

    const again = await buildApp({
      config: loadConfig({
        CMS_DATA_DIR: site.platform.dataDir,
        CMS_OWNER_KEY: TEST_OWNER_KEY,
        LOG_LEVEL: 'silent',
        CMS_SCHEDULER: '0',
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      }),
      engine: createEmbeddedEngine({ dataDir: site.platform.dataDir }),
    });
    try {
      await again.ready();
      const call = (url: string) => again.inject({ method: 'GET', url, headers: site.headers });
      expect((await call('/api/types/movie')).json()).toMatchObject({ name: 'movie' });
      expect((await call('/api/templates/home')).json()).toMatchObject({ content: '<h1>Home</h1>' });
      expect((await call('/api/content/movie/movie:vienna-nights')).json()).toMatchObject({
        fields: { title: 'Vienna nights' },
      });
      expect((await call('/api/content/movie?q=draft')).json()).toEqual([]);
      expect((await call('/api/content/movie?q=vienna')).json()).toHaveLength(1);
      const graph = await again.trellis.engine.openGraph(site.graph.name);
      expect(await graph?.getNode('type:movie')).toBeNull();
      expect(graph && (await readDataVersion(graph))).toBe(SITE_DATA_VERSION);
    } finally {
      await again.close();
    }
  });
});
