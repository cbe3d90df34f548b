import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

describe('build progress and cancel (POST /api/build/cancel/{buildId})', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'cancel' });
    await seedBlog(site);
  });
  afterEach(async () => {
    await site.close();
  });

  const status = async (buildId: string) =>
    (await site.request({ method: 'GET', url: `/api/build/status/${buildId}` })).json();
  /** Polls the status until `done` says so (each poll is a real request; no fixed wait decides anything). */
  const until = async (buildId: string, done: (s: Record<string, any>) => boolean) => {
    for (;;) {
      const current = await status(buildId);
      if (done(current)) return current;
      await delay(25);
    }
  };

  it('a queued build shows `queued`, is cancelled before it starts, and the live pages stay', async () => {
    const first = (await site.request({ method: 'POST', url: '/api/build?env=dev' })).json();
    expect(first.ok).toBe(true);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Holds the environment's build queue, so the next build waits in it.
    const holding = site.platform.app.builds.exclusive(site.graph.name, 'dev', () => held);
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h1>changed</h1>' },
    });
    const started = await site.request({
      method: 'POST',
      url: '/api/build?env=dev&async=1',
      payload: { mode: 'full' },
    });
    expect(started.statusCode).toBe(202);
    const { buildId } = started.json();
    expect((await status(buildId)).progress).toMatchObject({ phase: 'queued' });

    const cancelled = await site.request({ method: 'POST', url: `/api/build/cancel/${buildId}` });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({ buildId, status: 'running', cancelRequested: true });
    release();
    await holding;
    const ended = await until(buildId, (s) => s.status !== 'running');
    expect(ended).toMatchObject({ status: 'error', cancelled: true, ok: false, deploy: null });
    const page = await site.platform.app.inject({
      method: 'GET',
      url: '/sites/cancel/dev/posts/hello-world/',
    });
    expect(page.body).toContain('<h1>Hello world</h1>');
    expect((await site.request({ method: 'GET', url: '/api/build/last?env=dev' })).json().buildId).toBe(
      first.buildId,
    );

    const again = await site.request({ method: 'POST', url: `/api/build/cancel/${buildId}` });
    expect(again.statusCode).toBe(409);
    expect((await site.request({ method: 'POST', url: '/api/build/cancel/b-nope' })).statusCode).toBe(404);
    const audit = (await site.graph.auditRecords()).map((entry) => entry.action);
    expect(audit).toContain('build.cancel');
  });

  it('a running build reports its phase and counts, and stops rendering when cancelled', async () => {
    // Pages slow enough (a loop in the template) that the render phase lasts seconds.
    const records = Array.from({ length: 60 }, (_, n) => ({ title: `Post ${n}`, body: `Body ${n}` }));
    const imported = await site.request({
      method: 'POST',
      url: '/api/import/json',
      payload: { typeName: 'post', records },
    });
    expect(imported.statusCode).toBe(200);
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: {
        content:
          '{% assign n = 0 %}{% for i in (1..400) %}{% for j in (1..400) %}{% assign n = n | plus: 1 %}{% endfor %}{% endfor %}<h1>{{ item.title }} {{ n }}</h1>',
      },
    });
    const started = (
      await site.request({ method: 'POST', url: '/api/build?env=dev&async=1', payload: { mode: 'full' } })
    ).json();
    const rendering = await until(
      started.buildId,
      (s) => s.status !== 'running' || s.progress?.phase === 'render',
    );
    expect(rendering.status).toBe('running');
    expect(rendering.progress.total).toBeGreaterThanOrEqual(60);
    const cancel = await site.request({ method: 'POST', url: `/api/build/cancel/${started.buildId}` });
    expect(cancel.statusCode).toBe(200);
    const ended = await until(started.buildId, (s) => s.status !== 'running');
    expect(ended).toMatchObject({ status: 'error', cancelled: true, deploy: null });
    expect(
      (await site.platform.app.inject({ method: 'GET', url: '/sites/cancel/dev/posts/post-1/' })).statusCode,
    ).toBe(404);
  });
});
