import { afterEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

// The build's events: beforeBuild and beforeRender transforms change items before they render
// (beforeBuild first), script transforms run in the QuickJS sandbox, afterBuild scripts run once
// the build is recorded, and one budget bounds all of a build's transforms.

let site: ContentTestSite;
afterEach(async () => {
  await site?.close();
});

async function start(env: Record<string, string> = {}) {
  site = await createContentTestSite({ slug: 'blog', env });
  await seedBlog(site);
}

async function post(url: string, payload: Record<string, unknown>) {
  const res = await site.request({ method: 'POST', url, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function buildDev() {
  const res = await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function page(url: string) {
  return (await site.platform.app.inject({ method: 'GET', url })).body;
}

describe('transform events in a server build', () => {
  it('beforeBuild: a script transform changes the rendered page, before beforeRender transforms', async () => {
    await start();
    await post('/api/scripts', {
      name: 'headline',
      source: 'return { fields: { title: "Breaking: " + item.fields.title } };',
    });
    await post('/api/transforms', {
      name: 'Headline',
      event: 'beforeBuild',
      type: 'post',
      kind: 'script',
      script: 'headline',
      order: 100,
    });
    // a lower order, but a later event: it sees what beforeBuild did
    await post('/api/transforms', {
      name: 'Bang',
      event: 'beforeRender',
      type: 'post',
      kind: 'set-field',
      field: 'title',
      value: '{{ item.title }}!',
      order: -100,
    });
    const built = await buildDev();
    expect(built).toMatchObject({ ok: true, transformErrors: [] });
    expect(await page('/sites/blog/dev/posts/hello-world/')).toContain('<h1>Breaking: Hello world!</h1>');
  });

  it('beforeRender: a script bound to the event changes the page without a transform', async () => {
    await start();
    await post('/api/scripts', {
      name: 'shout',
      event: 'beforeRender',
      type: 'post',
      source: 'return { fields: { title: item.fields.title.toUpperCase() } };',
    });
    expect((await buildDev()).ok).toBe(true);
    expect(await page('/sites/blog/dev/posts/second-post/')).toContain('<h1>SECOND POST</h1>');
  });

  it('afterBuild: runs once the build is recorded, with the build’s figures; its result is in the audit chain', async () => {
    await start();
    await post('/api/scripts', {
      name: 'report',
      event: 'afterBuild',
      source:
        'console.log("built", build.buildId); return { pages: build.artifacts, ok: build.ok, env: build.env };',
    });
    const built = await buildDev();
    expect(built.ok).toBe(true);
    const audit = await site.request({ method: 'GET', url: '/api/audit?action=hook.afterBuild' });
    const [entry] = audit.json().items;
    expect(entry).toMatchObject({
      target: `build:${built.buildId}`,
      data: { hook: 'script report', status: 'ok', logs: [`built ${built.buildId}`] },
    });
    expect(JSON.parse(entry.data.value)).toEqual({ pages: built.artifacts, ok: true, env: 'dev' });
  });

  it('fails a build whose transforms run past the build’s budget, naming the transform', async () => {
    await start({ TRANSFORM_BUDGET_MS: '1500' });
    // each item well under its own limit (2 s), the two together past the budget
    await post('/api/scripts', {
      name: 'slow',
      source: 'const end = Date.now() + 1000; while (Date.now() < end) {}',
      timeoutMs: 5000,
    });
    await post('/api/transforms', {
      name: 'Slow one',
      event: 'beforeRender',
      kind: 'script',
      script: 'slow',
    });
    const built = await buildDev();
    expect(built.ok).toBe(false);
    expect(built.error).toMatch(
      /^transforms_stopped: the transforms ran past their budget of 1500 ms for the build \(at transform "Slow one" on post:[a-z-]+\)/,
    );
  });
});
