import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../test/helpers/blog-site';
import { captureLogs } from '../../test/helpers/capture-logs';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { TEST_OWNER_KEY } from '../../test/helpers/test-platform';
import { loadConfig } from '../config';
import { createEmbeddedEngine } from '../engines/embedded';
import { buildApp } from '../http/app';
import { DeploymentScheduler } from './deployment-scheduler';
import { getLiveHead, liveHeadId } from './live-state';
import { ReleasePublisher } from './release-publisher';

let site: ContentTestSite;
let app: FastifyInstance;
let clock: Date;

beforeEach(async () => {
  site = await createContentTestSite({ slug: 'blog' });
  app = site.platform.app;
  clock = new Date('2026-05-01T12:00:00.000Z');
  app.releases.now = () => clock;
  await seedBlog(site);
});
afterEach(async () => {
  await site.close();
});

const post = (url: string, payload: unknown = {}) =>
  site.request({ method: 'POST', url, payload: payload as Record<string, unknown> });
const get = (url: string) => site.request({ method: 'GET', url });
const patch = (url: string, payload: Record<string, unknown>) =>
  site.request({ method: 'PATCH', url, payload });
/** The served page (public, no credentials). */
const page = async (path: string) => (await app.inject({ method: 'GET', url: `/sites/blog/${path}` })).body;
/** The title the served page shows, or null when there is no page (404) or it has none. */
const title = async (path: string) => {
  const res = await app.inject({ method: 'GET', url: `/sites/blog/${path}` });
  return res.statusCode === 200 ? (/<h1>([^<]*)<\/h1>/.exec(res.body)?.[1] ?? null) : null;
};
const HELLO = 'prod/posts/hello-world/';

/** The include of an item's head now. */
async function head(id: string) {
  const record = (await get(`/api/content/post/${id}`)).json();
  return { kind: 'content', versionableId: id, version: record.version, hash: record.hash };
}

async function approved(name: string, includes: unknown[]) {
  expect((await post('/api/releases', { name, includes })).statusCode).toBe(201);
  await post(`/api/releases/release:${name}/transition`, { state: 'pending' });
  const res = await post(`/api/releases/release:${name}/transition`, { state: 'approved' });
  expect(res.statusCode, res.body).toBe(200);
}

async function deploy(name: string, body: Record<string, unknown> = {}) {
  const res = await post(`/api/releases/release:${name}/deploy`, { environmentId: 'env:prod', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function buildCount(): Promise<number> {
  return (await get('/api/build/history?env=prod&limit=500')).json().length;
}

function scheduler(now: () => Date) {
  return new DeploymentScheduler({
    engine: site.platform.engine,
    platform: app.trellis.platform,
    publisher: app.releases.publisher,
    now,
    log: app.log,
    intervalMs: 60_000,
    prebuild: false,
  });
}

describe('deployments publish what they pin', () => {
  it('serves the release’s versions in prod; edits change nothing there until a newer release; rollback switches back without a render', async () => {
    expect(await title(HELLO)).toBeNull();
    await approved('v1', [await head('post:hello-world')]);
    const first = await deploy('v1');
    expect(first).toMatchObject({ status: 'deployed', buildId: expect.any(String) });
    expect(await title(HELLO)).toBe('Hello world');
    // The other post was never published: its page is the stub.
    expect(await page('prod/posts/second-post/')).toContain('Not published');

    expect((await patch('/api/content/post/post:hello-world', { title: 'Hello again' })).statusCode).toBe(
      200,
    );
    const rebuilt = await post('/api/build', { env: 'prod', mode: 'full' });
    expect(rebuilt.json().ok).toBe(true);
    expect(await title(HELLO)).toBe('Hello world');
    expect(await title('dev/posts/hello-world/')).toBeNull();
    await post('/api/build', { env: 'dev', mode: 'full' });
    expect(await title('dev/posts/hello-world/')).toBe('Hello again');

    await approved('v2', [await head('post:hello-world')]);
    const second = await deploy('v2');
    expect(await title(HELLO)).toBe('Hello again');
    expect(second.buildId).not.toBe(first.buildId);

    const builds = await buildCount();
    const rolled = await post(`/api/releases/deployments/${second.id}/rollback`, {
      rollbackToReleaseId: 'release:v1',
    });
    expect(rolled.statusCode, rolled.body).toBe(201);
    expect(rolled.json()).toMatchObject({
      status: 'deployed',
      buildId: first.buildId,
      rollbackOf: second.id,
    });
    expect(await title(HELLO)).toBe('Hello world');
    expect(await buildCount()).toBe(builds);
    // The live state is restored too: the next build of prod renders v1's version again.
    const live = (await get('/api/releases/live?envId=env:prod')).json();
    expect(live.items).toEqual([expect.objectContaining({ itemId: 'post:hello-world', version: 1 })]);
    expect((await post('/api/build', { env: 'prod', mode: 'full' })).json().ok).toBe(true);
    expect(await title(HELLO)).toBe('Hello world');
    // One audit entry for the rollback.
    const audit = await site.graph.auditRecords();
    expect(audit.filter((r) => r.action === 'deployment.rollback')).toHaveLength(1);
    // /build/last follows what is live.
    const [built] = (await get('/api/build/history?env=prod&limit=1')).json();
    const last = (await get('/api/build/last?env=prod')).json();
    expect(last).toMatchObject({ live: true });
    expect(last.buildId).toBe(built.buildId);
  });

  it('a failed build leaves the old site live and the deployment failed; a retry takes it live', async () => {
    await approved('v1', [await head('post:hello-world')]);
    await deploy('v1');
    await patch('/api/content/post/post:hello-world', { title: 'Broken next' });
    await approved('v2', [await head('post:hello-world')]);
    // A template the renderer rejects fails the build.
    const broken = await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h1>{{ item.title | nosuchfilter: }}</h1>' },
    });
    if (broken.statusCode !== 200) {
      // The template write checks syntax: break the build through a render-time error instead.
      expect(
        (
          await site.request({
            method: 'PUT',
            url: '/api/templates/post',
            payload: { content: "<h1>{{ item.title }}</h1>{% render 'missing-partial' %}" },
          })
        ).statusCode,
      ).toBe(200);
    }
    const failed = await deploy('v2');
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('failed') });
    expect(await title(HELLO)).toBe('Hello world');
    expect((await get('/api/releases/release:v2')).json().state).toBe('approved');
    expect((await post(`/api/releases/deployments/${failed.id}/retry`)).statusCode).toBe(200);
    expect((await get(`/api/releases/deployments/${failed.id}`)).json().status).toBe('failed');
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h1>{{ item.title }}</h1>' },
    });
    const retried = await post(`/api/releases/deployments/${failed.id}/retry`);
    expect(retried.json()).toMatchObject({ status: 'deployed' });
    expect(await title(HELLO)).toBe('Broken next');
    expect((await post(`/api/releases/deployments/${failed.id}/retry`)).statusCode).toBe(409);
  });
});

describe('scheduled deployments', () => {
  it('are built ahead and switched in at validFrom with that build; not before', async () => {
    await approved('v1', [await head('post:hello-world')]);
    await deploy('v1');
    await patch('/api/content/post/post:hello-world', { title: 'Tomorrow' });
    await approved('v2', [await head('post:hello-world')]);
    const validFrom = new Date(clock.getTime() + 60_000).toISOString();
    const pending = await deploy('v2', { validFrom });
    expect(pending.status).toBe('pending');
    const publisher = new ReleasePublisher({ builds: app.builds, log: app.log, clock: { now: () => clock } });
    const sitesView = (await get(`/api/sites/${site.siteId}`)).json();
    await publisher.prebuild({ site: sitesView, graph: site.graph, deployment: pending });
    const prebuilt = (await get(`/api/releases/deployments/${pending.id}`)).json();
    expect(prebuilt.prebuiltBuildId).toEqual(expect.any(String));
    expect(await title(HELLO)).toBe('Hello world');
    expect((await scheduler(() => clock).tick()).fired).toEqual([]);
    expect(await title(HELLO)).toBe('Hello world');
    const builds = await buildCount();
    const due = new Date(clock.getTime() + 60_000);
    app.releases.now = () => due;
    const fired = await scheduler(() => due).tick();
    expect(fired.fired.map((d) => d.id)).toEqual([pending.id]);
    expect(fired.fired[0]?.buildId).toBe(prebuilt.prebuiltBuildId);
    expect(await buildCount()).toBe(builds);
    expect(await title(HELLO)).toBe('Tomorrow');
    expect((await getLiveHead(site.graph, 'env:prod')).buildId).toBe(prebuilt.prebuiltBuildId);
  });

  it('a drip of releases goes live in order, each with the build made ahead for it', async () => {
    await approved('a', [await head('post:hello-world')]);
    await approved('b', [await head('post:second-post')]);
    const start = new Date(clock.getTime() + 60_000);
    const dripped = await post('/api/releases/drip-schedule', {
      environmentId: 'env:prod',
      releaseIds: ['release:a', 'release:b'],
      windowStart: start.toISOString(),
      windowEnd: new Date(start.getTime() + 60_000).toISOString(),
    });
    expect(dripped.statusCode, dripped.body).toBe(201);
    const [first, second] = dripped.json().deployments;
    const sitesView = (await get(`/api/sites/${site.siteId}`)).json();
    for (const deployment of [first, second])
      await app.releases.publisher.prebuild({ site: sitesView, graph: site.graph, deployment });
    const prebuilt = async (id: string) =>
      (await get(`/api/releases/deployments/${id}`)).json().prebuiltBuildId;
    const ahead = [await prebuilt(first.id), await prebuilt(second.id)];
    const builds = await buildCount();
    const at = (ms: number) => {
      const now = new Date(start.getTime() + ms);
      app.releases.now = () => now;
      return scheduler(() => now).tick();
    };
    expect((await at(1_000)).fired.map((d) => [d.id, d.buildId])).toEqual([[first.id, ahead[0]]]);
    expect(await title(HELLO)).toBe('Hello world');
    expect(await page('prod/posts/second-post/')).toContain('Not published');
    expect((await at(61_000)).fired.map((d) => [d.id, d.buildId])).toEqual([[second.id, ahead[1]]]);
    expect(await title('prod/posts/second-post/')).toBe('Second post');
    expect(await title(HELLO)).toBe('Hello world');
    expect(await buildCount()).toBe(builds);
  });

  it('a build ahead that went stale (a template changed) is not used: the switch builds anew', async () => {
    await approved('v1', [await head('post:hello-world')]);
    const validFrom = new Date(clock.getTime() + 60_000).toISOString();
    const pending = await deploy('v1', { validFrom });
    const sitesView = (await get(`/api/sites/${site.siteId}`)).json();
    await app.releases.publisher.prebuild({ site: sitesView, graph: site.graph, deployment: pending });
    const prebuilt = (await get(`/api/releases/deployments/${pending.id}`)).json().prebuiltBuildId;
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h1>{{ item.title }}</h1><p>new layout</p>' },
    });
    const due = new Date(clock.getTime() + 61_000);
    app.releases.now = () => due;
    const [fired] = (await scheduler(() => due).tick()).fired;
    expect(fired?.buildId).toEqual(expect.any(String));
    expect(fired?.buildId).not.toBe(prebuilt);
    expect(await page(HELLO)).toContain('new layout');
  });

  it('a build ahead is forgotten (to be built again) once what it stands on changes before its time', async () => {
    await approved('v1', [await head('post:hello-world')]);
    const pending = await deploy('v1', { validFrom: new Date(clock.getTime() + 60_000).toISOString() });
    const sitesView = (await get(`/api/sites/${site.siteId}`)).json();
    const publisher = app.releases.publisher;
    await publisher.prebuild({ site: sitesView, graph: site.graph, deployment: pending });
    expect(await publisher.refreshIfStale({ site: sitesView, graph: site.graph, deployment: pending })).toBe(
      false,
    );
    await post('/api/content/post/post:second-post/publish');
    expect(await publisher.refreshIfStale({ site: sitesView, graph: site.graph, deployment: pending })).toBe(
      true,
    );
    expect((await get(`/api/releases/deployments/${pending.id}`)).json().prebuiltBuildId).toBeNull();
    await publisher.prebuild({ site: sitesView, graph: site.graph, deployment: pending });
    expect((await get(`/api/releases/deployments/${pending.id}`)).json().prebuiltBuildId).toEqual(
      expect.any(String),
    );
    expect(await publisher.refreshIfStale({ site: sitesView, graph: site.graph, deployment: pending })).toBe(
      false,
    );
  });
});

describe('publishing and the live state', () => {
  it('publish puts the head live, unpublish takes it down, each seen by the next prod build; dev builds heads', async () => {
    const published = await post('/api/content/post/post:hello-world/publish');
    expect(published.json()).toMatchObject({ status: 'published', publishedEnvs: ['prod'], version: 1 });
    await patch('/api/content/post/post:hello-world', { title: 'Edited after' });
    await post('/api/build', { env: 'prod', mode: 'full' });
    expect(await title(HELLO)).toBe('Hello world');
    const down = await post('/api/content/post/post:hello-world/unpublish');
    expect(down.json()).toMatchObject({ status: 'draft', publishedEnvs: [] });
    await post('/api/build', { env: 'prod', mode: 'incremental' });
    expect(await page(HELLO)).toContain('Not published');
    const live = (await get('/api/releases/live?envId=env:prod')).json();
    expect(live, JSON.stringify(live)).toMatchObject({ items: [], revision: 2 });
    const before = (await get(`/api/releases/live?envId=env:prod&atTime=${clock.toISOString()}`)).json();
    expect(before.items).toEqual([]);
  });

  it('bulk publish and unpublish change many items in one revision; missing ids publish nothing', async () => {
    const missing = await post('/api/publish', { ids: ['post:hello-world', 'post:nope'] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toContain('post:nope');
    expect((await get('/api/releases/live?envId=env:prod')).json().items).toEqual([]);
    const all = await post('/api/publish', { type: 'post', env: 'prod' });
    expect(all.json()).toMatchObject({ changed: 2, unchanged: 0, revision: 1 });
    const again = await post('/api/publish', { type: 'post' });
    expect(again.json()).toMatchObject({ changed: 0, unchanged: 2, revision: 1 });
    const down = await post('/api/unpublish', { ids: ['post:second-post'] });
    expect(down.json()).toMatchObject({ changed: 1, ids: ['post:second-post'], revision: 2 });
    await post('/api/build', { env: 'prod', mode: 'full' });
    expect(await title(HELLO)).toBe('Hello world');
    expect(await page('prod/posts/second-post/')).toContain('Not published');
    expect((await post('/api/publish', { env: 'staging', type: 'post' })).json().code).toBe(
      'unknown_environment',
    );
  });

  it('an import can publish what it wrote; deleting an item takes it out of every environment', async () => {
    const imported = await post('/api/import/json', {
      typeName: 'post',
      records: [{ title: 'Imported one' }, { title: 'Imported two' }],
      publish: 'prod',
    });
    expect(imported.json(), imported.body).toMatchObject({
      created: 2,
      published: { envId: 'env:prod', count: 2 },
    });
    expect((await get('/api/releases/live?envId=env:prod')).json().items).toHaveLength(2);
    const removed = await site.request({ method: 'DELETE', url: '/api/content/post/post:imported-one' });
    expect(removed.statusCode).toBe(204);
    const live = (await get('/api/releases/live?envId=env:prod')).json();
    expect(live.items.map((i: { itemId: string }) => i.itemId)).toEqual(['post:imported-two']);
  });
});

describe('replay and previews', () => {
  it('answers past and future live states, and builds a preview of the site as of a future time', async () => {
    await approved('v1', [await head('post:hello-world')]);
    const t0 = clock;
    const first = await deploy('v1');
    clock = new Date(t0.getTime() + 60_000);
    await patch('/api/content/post/post:hello-world', { title: 'Next week' });
    await approved('v2', [await head('post:hello-world')]);
    const nextWeek = new Date(t0.getTime() + 7 * 86_400_000);
    const pending = await deploy('v2', { validFrom: nextWeek.toISOString() });
    const past = (await get(`/api/releases/replay?envId=env:prod&atTime=${t0.toISOString()}`)).json();
    expect(past).toMatchObject({ deployment: { id: first.id }, future: false });
    expect(past.live).toEqual([expect.objectContaining({ itemId: 'post:hello-world', version: 1 })]);
    const future = (
      await get(
        `/api/releases/replay?envId=env:prod&atTime=${new Date(nextWeek.getTime() + 1000).toISOString()}`,
      )
    ).json();
    expect(future).toMatchObject({ deployment: { id: pending.id }, future: true });
    expect(future.live).toEqual([expect.objectContaining({ itemId: 'post:hello-world', version: 2 })]);
    const before = await get(
      `/api/releases/replay?envId=env:prod&atTime=${new Date(t0.getTime() - 1).toISOString()}`,
    );
    expect(before.statusCode).toBe(404);

    const preview = await post('/api/build', { env: 'prod', asOf: nextWeek.toISOString() });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({
      ok: true,
      previewUrl: expect.stringMatching(/^\/previews\/blog\//),
    });
    const shown = (await app.inject({ method: 'GET', url: `${preview.json().previewUrl}posts/hello-world/` }))
      .body;
    expect(shown).toContain('<h1>Next week</h1>');
    expect(await title(HELLO)).toBe('Hello world');
    expect((await app.inject({ method: 'GET', url: '/previews/blog/nope/' })).statusCode).toBe(404);
  });
});

describe('the pointer follows the graph', () => {
  it('reconcile switches an environment back to the build its live head names', async () => {
    await approved('v1', [await head('post:hello-world')]);
    const first = await deploy('v1');
    await patch('/api/content/post/post:hello-world', { title: 'Later' });
    await approved('v2', [await head('post:hello-world')]);
    await deploy('v2');
    expect(await title(HELLO)).toBe('Later');
    // As if a process had stopped after recording v1 live but before switching to it.
    const node = await site.graph.getNode(liveHeadId('prod'));
    await site.graph.updateNode(liveHeadId('prod'), { props: { ...node?.props, buildId: first.buildId } });
    const sitesView = (await get(`/api/sites/${site.siteId}`)).json();
    expect(await app.releases.publisher.reconcile({ site: sitesView, graph: site.graph })).toBe(1);
    expect(await title(HELLO)).toBe('Hello world');
    expect(await app.releases.publisher.reconcile({ site: sitesView, graph: site.graph })).toBe(0);
  });
});

describe('after a restart', () => {
  it('/build/last and health answer the live build, and a pointer left behind is put right on start', async () => {
    await approved('v1', [await head('post:hello-world')]);
    const first = await deploy('v1');
    await patch('/api/content/post/post:hello-world', { title: 'Later' });
    await approved('v2', [await head('post:hello-world')]);
    const second = await deploy('v2');
    expect((await get('/api/health')).json().lastBuildId).toBe(second.buildId);
    // Stop as if between recording a rollback to v1's build and switching to it.
    const node = await site.graph.getNode(liveHeadId('prod'));
    await site.graph.updateNode(liveHeadId('prod'), { props: { ...node?.props, buildId: first.buildId } });
    await app.close();
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
      const headers = { ...site.headers };
      const last = await again.inject({ method: 'GET', url: '/api/build/last?env=prod', headers });
      expect(last.json()).toMatchObject({ buildId: first.buildId, live: true });
      const health = await again.inject({ method: 'GET', url: '/api/health', headers });
      expect(health.json().lastBuildId).toBe(first.buildId);
      const served = await again.inject({ method: 'GET', url: `/sites/blog/${HELLO}` });
      expect(served.body).toContain('<h1>Hello world</h1>');
    } finally {
      await again.close();
    }
  });
});

describe('events', () => {
  it('logs a deployment going live, failing and being rolled back, with envId, releaseId, deploymentId and buildId', async () => {
    const logs = captureLogs();
    const logged = await createContentTestSite({
      slug: 'logged',
      logStream: logs.stream,
      env: { LOG_LEVEL: 'info' },
    });
    try {
      await seedBlog(logged);
      const call = (url: string, payload: Record<string, unknown> = {}) =>
        logged.request({ method: 'POST', url, payload });
      const release = async (name: string) => {
        const record = (
          await logged.request({ method: 'GET', url: '/api/content/post/post:hello-world' })
        ).json();
        const include = {
          kind: 'content',
          versionableId: record.id,
          version: record.version,
          hash: record.hash,
        };
        await call('/api/releases', { name, includes: [include] });
        await call(`/api/releases/release:${name}/transition`, { state: 'pending' });
        await call(`/api/releases/release:${name}/transition`, { state: 'approved' });
      };
      await release('one');
      const one = (await call('/api/releases/release:one/deploy', { environmentId: 'env:prod' })).json();
      await logged.request({
        method: 'PATCH',
        url: '/api/content/post/post:hello-world',
        payload: { title: 'Two' },
      });
      await release('two');
      const two = (await call('/api/releases/release:two/deploy', { environmentId: 'env:prod' })).json();
      const back = (
        await call(`/api/releases/deployments/${two.id}/rollback`, { rollbackToReleaseId: 'release:one' })
      ).json();
      await logged.request({
        method: 'PUT',
        url: '/api/templates/post',
        payload: { content: "<h1>{{ item.title }}</h1>{% render 'missing-partial' %}" },
      });
      const failed = (await call('/api/releases/release:two/deploy', { environmentId: 'env:prod' })).json();
      expect(failed.status).toBe('failed');
      const byMsg = (msg: string) => logs.lines().filter((line) => line.msg === msg);
      const base = { level: 'info', component: 'releases', siteId: logged.siteId, envId: 'env:prod' };
      expect(byMsg('deployment live')).toEqual([
        expect.objectContaining({
          ...base,
          releaseId: 'release:one',
          deploymentId: one.id,
          buildId: one.buildId,
        }),
        expect.objectContaining({
          ...base,
          releaseId: 'release:two',
          deploymentId: two.id,
          buildId: two.buildId,
        }),
      ]);
      expect(byMsg('deployment rolled back')).toEqual([
        expect.objectContaining({
          ...base,
          releaseId: 'release:one',
          deploymentId: back.id,
          rolledBack: two.id,
          buildId: one.buildId,
          rendered: false,
        }),
      ]);
      expect(byMsg('deployment failed')).toEqual([
        expect.objectContaining({
          ...base,
          level: 'error',
          releaseId: 'release:two',
          deploymentId: failed.id,
          buildId: expect.any(String),
        }),
      ]);
      for (const line of [...byMsg('deployment live'), ...byMsg('deployment failed')])
        expect(line.ts).toEqual(expect.any(String));
    } finally {
      await logged.close();
    }
  });
});
