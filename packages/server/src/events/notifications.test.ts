import { afterEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import type { Clock } from '../shared/clock';

let site: ContentTestSite;
afterEach(async () => {
  await site?.close();
});

function handClock(start: string) {
  let at = Date.parse(start);
  const clock: Clock = { now: () => new Date(at) };
  return { clock, advance: (ms: number) => (at += ms) };
}

const as = (key: string) => ({ authorization: `Bearer ${key}` });

async function inbox(key?: string, query = '') {
  await site.platform.app.events.bus.drain();
  const res = await site.platform.app.inject({
    method: 'GET',
    url: `/api/notifications${query}`,
    headers: key ? as(key) : { authorization: `Bearer ${site.platform.ownerKey}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { items: res.json() as Array<Record<string, any>>, total: Number(res.headers['x-total-count']) };
}

describe('notifications', () => {
  it('a failed build lands in the inbox of members who run builds, not of viewers; read one, read all', async () => {
    site = await createContentTestSite({ slug: 'blog', env: { CMS_WEBHOOKS: '0' } });
    await seedBlog(site);
    const publisher = await site.platform.addUser({ name: 'pub', siteId: site.siteId, role: 'publisher' });
    const viewer = await site.platform.addUser({ name: 'view', siteId: site.siteId, role: 'viewer' });
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '{% render "missing" %}' },
    });
    for (let i = 0; i < 2; i += 1) {
      const bad = await site.request({
        method: 'POST',
        url: '/api/build?env=dev',
        payload: { mode: 'full' },
      });
      expect(bad.json()).toMatchObject({ ok: false, status: 'error' });
    }

    const mine = await inbox(publisher.key);
    expect(mine.total).toBe(2);
    expect(mine.items[0]).toMatchObject({ type: 'build.failed', siteId: site.siteId, readAt: null });
    expect(mine.items[0]!.title).toContain('failed');
    expect(mine.items[0]!.data).toMatchObject({ env: 'dev', purpose: 'build' });
    expect((await inbox()).total).toBe(2); // the owner
    expect((await inbox(viewer.key)).total).toBe(0);

    const count = async (key: string) =>
      (
        await site.platform.app.inject({
          method: 'GET',
          url: '/api/notifications/unread-count',
          headers: as(key),
        })
      ).json().unread;
    expect(await count(publisher.key)).toBe(2);
    // Nobody reads another's notification.
    const first = mine.items[0]!.id;
    const theirs = await site.platform.app.inject({
      method: 'POST',
      url: `/api/notifications/${first}/read`,
      headers: as(viewer.key),
    });
    expect(theirs.statusCode).toBe(404);
    const read = await site.platform.app.inject({
      method: 'POST',
      url: `/api/notifications/${first}/read`,
      headers: as(publisher.key),
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().readAt).toEqual(expect.any(String));
    expect(await count(publisher.key)).toBe(1);
    expect((await inbox(publisher.key, '?unread=true')).items.map((n) => n.id)).not.toContain(first);
    expect((await inbox(publisher.key, '?limit=1&offset=1')).items).toHaveLength(1);
    const all = await site.platform.app.inject({
      method: 'POST',
      url: '/api/notifications/read-all',
      headers: as(publisher.key),
    });
    expect(all.json()).toEqual({ ok: true, marked: 1 });
    expect(await count(publisher.key)).toBe(0);
    // The owner's are still unread.
    expect((await inbox(undefined, '?unread=true')).total).toBe(2);
  });

  it('a scheduled deployment that went live is announced to those who deploy; an immediate one is not', async () => {
    const time = handClock('2026-05-01T12:00:00.000Z');
    site = await createContentTestSite({ slug: 'blog', clock: time.clock, env: { CMS_WEBHOOKS: '0' } });
    await seedBlog(site);
    const editor = await site.platform.addUser({ name: 'ed', siteId: site.siteId, role: 'editor' });
    const record = (await site.request({ method: 'GET', url: '/api/content/post/post:hello-world' })).json();
    const includes = [
      { kind: 'content', versionableId: record.id, version: record.version, hash: record.hash },
    ];
    for (const name of ['now', 'later']) {
      expect(
        (await site.request({ method: 'POST', url: '/api/releases', payload: { name, includes } }))
          .statusCode,
      ).toBe(201);
      for (const state of ['pending', 'approved']) {
        const moved = await site.request({
          method: 'POST',
          url: `/api/releases/release:${name}/transition`,
          payload: { state },
        });
        expect(moved.statusCode, moved.body).toBe(200);
      }
    }
    const now = await site.request({
      method: 'POST',
      url: '/api/releases/release:now/deploy',
      payload: { environmentId: 'env:prod' },
    });
    expect(now.json().status).toBe('deployed');
    const later = await site.request({
      method: 'POST',
      url: '/api/releases/release:later/deploy',
      payload: { environmentId: 'env:prod', validFrom: '2026-05-01T13:00:00.000Z' },
    });
    expect(later.json().status).toBe('pending');
    expect((await inbox(editor.key)).items.filter((n) => n.type === 'deployment.live')).toHaveLength(0);

    time.advance(60 * 60 * 1000);
    const { DeploymentScheduler } = await import('../releases/deployment-scheduler');
    const app = site.platform.app;
    const scheduler = new DeploymentScheduler({
      engine: app.trellis.engine,
      platform: app.trellis.platform,
      publisher: app.releases.publisher,
      now: () => time.clock.now(),
      log: app.log,
      intervalMs: 60_000,
      prebuild: false,
    });
    const tick = await scheduler.tick();
    expect(tick.fired.map((d) => d.id)).toEqual([later.json().id]);
    const live = (await inbox(editor.key)).items.filter((n) => n.type === 'deployment.live');
    expect(live).toHaveLength(1);
    expect(live[0]!.data).toMatchObject({
      deploymentId: later.json().id,
      releaseId: 'release:later',
      scheduled: true,
      status: 'deployed',
    });
    expect(live[0]!.title).toContain('is live');
  });

  it('a review gone stale is announced once to those who manage releases', async () => {
    site = await createContentTestSite({ slug: 'blog', env: { CMS_WEBHOOKS: '0' } });
    await seedBlog(site);
    const record = (await site.request({ method: 'GET', url: '/api/content/post/post:hello-world' })).json();
    const includes = [
      { kind: 'content', versionableId: record.id, version: record.version, hash: record.hash },
    ];
    await site.request({ method: 'POST', url: '/api/releases', payload: { name: 'r1', includes } });
    await site.request({
      method: 'POST',
      url: '/api/releases/release:r1/transition',
      payload: { state: 'pending' },
    });
    expect((await inbox()).items.filter((n) => n.type === 'review.stale')).toHaveLength(0);
    for (const title of ['Changed once', 'Changed twice']) {
      const changed = await site.request({
        method: 'PATCH',
        url: '/api/content/post/post:hello-world',
        payload: { title },
      });
      expect(changed.statusCode).toBe(200);
    }
    const stale = (await inbox()).items.filter((n) => n.type === 'review.stale');
    expect(stale).toHaveLength(1);
    expect(stale[0]!.data).toMatchObject({ releaseId: 'release:r1', itemId: 'post:hello-world' });
  });
});
