import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFolderTarget, build as runBuilder } from '@trelliscms/builder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { buildNodeId } from '../build-service';

async function page(site: ContentTestSite, url: string) {
  return site.platform.app.inject({ method: 'GET', url });
}

describe('build routes', () => {
  let site: ContentTestSite;
  beforeEach(async () => {
    site = await createContentTestSite({ slug: 'blog' });
    await seedBlog(site);
  });
  afterEach(async () => {
    await site.close();
  });

  it('builds synchronously, deploys, records the build and serves the live pages', async () => {
    const built = await site.request({
      method: 'POST',
      url: '/api/build?env=dev',
      payload: { mode: 'full' },
    });
    expect(built.statusCode).toBe(200);
    const result = built.json();
    expect(result).toMatchObject({
      ok: true,
      mode: 'full',
      status: 'ok',
      envId: 'env:dev',
      transformErrors: [],
    });
    expect(result.artifacts).toBeGreaterThanOrEqual(2);
    expect(result.deploy).toMatchObject({ ok: true });
    expect(result.deploy.filesUploaded).toBeGreaterThanOrEqual(2);

    const hello = await page(site, '/sites/blog/dev/posts/hello-world/');
    expect(hello.statusCode).toBe(200);
    expect(hello.body).toContain('<h1>Hello world</h1>');
    expect(hello.body).toContain('<strong>Hello world</strong>');
    expect((await page(site, '/sites/blog/dev/posts/nope/')).statusCode).toBe(404);
    expect([400, 404]).toContain((await page(site, '/sites/blog/dev/%E0%A4%A')).statusCode);
    for (const url of ['/sites/blog/dev/', '/sites/blog/dev']) {
      const home = await page(site, url);
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain('<a href="/posts/hello-world/">Hello world</a>');
    }
    expect((await page(site, '/sites/blog/dev/../../../etc/passwd')).statusCode).toBe(404);

    const status = await site.request({ method: 'GET', url: `/api/build/status/${result.buildId}` });
    expect(status.json()).toMatchObject({
      buildId: result.buildId,
      status: 'ok',
      artifacts: result.artifacts,
    });
    const last = await site.request({ method: 'GET', url: '/api/build/last?env=dev' });
    expect(last.json().buildId).toBe(result.buildId);
    const health = await site.request({ method: 'GET', url: '/api/health' });
    expect(health.json().lastBuildId).toBe(result.buildId);
  });

  it('validate (dryRun) renders in memory, deploys nothing and records no build', async () => {
    const dry = await site.request({ method: 'POST', url: '/api/build?dryRun=1&env=dev' });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ ok: true, deploy: null, dryRun: true });
    expect(dry.json().artifactPaths).toEqual(expect.arrayContaining(['posts/hello-world/index.html']));
    expect((await page(site, '/sites/blog/dev/posts/hello-world/')).statusCode).toBe(404);
    const history = await site.request({ method: 'GET', url: '/api/build/history?env=dev' });
    expect(history.json()).toEqual([]);
  });

  it('answers 400 unknown_environment for an environment the site does not have, and builds nothing', async () => {
    const attempts = [
      await site.request({ method: 'POST', url: '/api/build?env=staging' }),
      await site.request({ method: 'POST', url: '/api/build', payload: { env: 'production', mode: 'full' } }),
      await site.request({ method: 'POST', url: '/api/build?async=1', payload: { env: 'env:staging' } }),
      await site.request({ method: 'POST', url: '/api/build?dryRun=1&env=staging' }),
      await site.request({ method: 'GET', url: '/api/build/last?env=staging' }),
      await site.request({ method: 'GET', url: '/api/build/history?env=staging' }),
    ];
    for (const res of attempts) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'unknown_environment',
        environments: ['env:dev', 'env:prod'],
      });
    }
    expect(attempts[1]!.json().error).toContain('env:production');
    expect((await site.request({ method: 'GET', url: '/api/build/history' })).json()).toEqual([]);
    expect((await page(site, '/sites/blog/staging/')).statusCode).toBe(404);
    expect((await site.request({ method: 'GET', url: '/api/releases/environments' })).json()).toHaveLength(2);

    // Once an admin creates the environment, it builds.
    const created = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: { order: 2 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const built = await site.request({
      method: 'POST',
      url: '/api/build?env=staging',
      payload: { mode: 'full' },
    });
    expect(built.statusCode, built.body).toBe(200);
    expect(built.json().ok).toBe(true);
    expect((await site.request({ method: 'GET', url: '/api/build/last?env=staging' })).statusCode).toBe(200);
  });

  it('pages the build history with limit and offset; X-Total-Count counts every build', async () => {
    const built: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await site.request({
        method: 'POST',
        url: '/api/build?env=dev',
        payload: { mode: 'full' },
      });
      expect(response.statusCode, response.body).toBe(200);
      built.push(response.json().buildId);
    }
    const history = await site.request({ method: 'GET', url: '/api/build/history?env=dev&limit=1&offset=1' });
    expect(history.json().map((b: { buildId: string }) => b.buildId)).toEqual([built[1]]);
    expect(history.headers['x-total-count']).toBe('3');
    const rest = await site.request({ method: 'GET', url: '/api/build/history?offset=2' });
    expect(rest.json().map((b: { buildId: string }) => b.buildId)).toEqual([built[0]]);
  });

  it('runs async builds: 202 with a statusUrl, then ok with final counts', async () => {
    const accepted = await site.request({
      method: 'POST',
      url: '/api/build?async=1',
      payload: { env: 'dev' },
    });
    expect(accepted.statusCode).toBe(202);
    const body = accepted.json();
    expect(body).toMatchObject({ ok: true, status: 'running', envId: 'env:dev' });
    expect(body.statusUrl).toBe(`/api/build/status/${body.buildId}`);
    let status = (await site.request({ method: 'GET', url: body.statusUrl })).json();
    for (const deadline = Date.now() + 120_000; status.status === 'running' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await site.request({ method: 'GET', url: body.statusUrl })).json();
    }
    expect(status).toMatchObject({ status: 'ok', ok: true });
    expect(status.artifacts).toBeGreaterThan(0);
    expect(status.deploy.filesUploaded).toBeGreaterThan(0);
  });

  it('builds prod with only published content; other items get a stub page', async () => {
    await site.request({ method: 'POST', url: '/api/content/post/post:hello-world/publish' });
    const built = await site.request({
      method: 'POST',
      url: '/api/build',
      payload: { env: 'prod', mode: 'full' },
    });
    expect(built.json().ok).toBe(true);
    expect((await page(site, '/sites/blog/prod/posts/hello-world/')).body).toContain('<h1>Hello world</h1>');
    const stub = await page(site, '/sites/blog/prod/posts/second-post/');
    expect(stub.body).not.toContain('Second post</h1>');
  });

  it('rolls back to the previous build’s pages', async () => {
    const first = (
      await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } })
    ).json();
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '<h2>{{ item.title }} v2</h2>' },
    });
    const second = (await site.request({ method: 'POST', url: '/api/build?env=dev' })).json();
    expect(second.ok).toBe(true);
    expect((await page(site, '/sites/blog/dev/posts/hello-world/')).body).toContain('Hello world v2');
    const rolled = await site.request({ method: 'POST', url: `/api/build/rollback/${first.buildId}` });
    expect(rolled.statusCode).toBe(200);
    expect(rolled.json()).toMatchObject({ ok: true, buildId: first.buildId, rolledBackFrom: second.buildId });
    const restored = await page(site, '/sites/blog/dev/posts/hello-world/');
    expect(restored.body).toContain('<h1>Hello world</h1>');
    expect((await site.request({ method: 'POST', url: '/api/build/rollback/b-nope' })).statusCode).toBe(404);
  });

  it('reports a template error in the result instead of throwing, and keeps the live pages', async () => {
    const good = (await site.request({ method: 'POST', url: '/api/build?env=dev' })).json();
    expect(good.ok).toBe(true);
    await site.request({
      method: 'PUT',
      url: '/api/templates/post',
      payload: { content: '{% render "missing-partial" %}' },
    });
    const bad = await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toMatchObject({ ok: false, status: 'error', deploy: null });
    expect(bad.json().error).toBeTruthy();
    expect((await page(site, '/sites/blog/dev/posts/hello-world/')).body).toContain('<h1>Hello world</h1>');
  });

  it('reports a failing transform in transformErrors without stopping the build', async () => {
    const transform = await site.request({
      method: 'POST',
      url: '/api/transforms',
      payload: {
        id: 'broken',
        name: 'Broken',
        event: 'beforeRender',
        type: 'post',
        kind: 'template',
        field: 'summary',
        template: 'no-such-template',
      },
    });
    expect(transform.statusCode).toBe(201);
    const built = (
      await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } })
    ).json();
    expect(built.transformErrors.length).toBe(2);
    expect(built.transformErrors[0]).toMatchObject({ transform: 'Broken' });
    expect(built.transformErrors.map((e: { contentId: string }) => e.contentId).sort()).toEqual([
      'post:hello-world',
      'post:second-post',
    ]);
    expect((await page(site, '/sites/blog/dev/posts/hello-world/')).body).toContain('<h1>Hello world</h1>');
  });

  it('marks builds a stopped server left running as error on the next start', async () => {
    const { app } = site.platform;
    await site.graph.transaction(async (tx) => {
      await tx.createNode({
        id: buildNodeId('b-interrupted'),
        labels: ['Build'],
        props: {
          ok: true,
          buildId: 'b-interrupted',
          envId: 'env:dev',
          status: 'running',
          startedAt: new Date().toISOString(),
        },
      });
    });
    const recovered = await app.builds.recoverInterrupted(site.graph);
    expect(recovered).toBe(1);
    const status = (await site.request({ method: 'GET', url: '/api/build/status/b-interrupted' })).json();
    expect(status).toMatchObject({ status: 'error', ok: false });
    expect(status.error).toMatch(/interrupted/);
  });

  it('exports a snapshot that cms-build’s library turns into byte-identical pages', async () => {
    const server = (
      await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } })
    ).json();
    expect(server.ok).toBe(true);
    const exported = await site.request({ method: 'GET', url: '/api/export' });
    expect(exported.statusCode).toBe(200);
    const snapshot = exported.json();
    expect(snapshot).toMatchObject({ format: 'trellis-snapshot', version: 1 });
    expect(snapshot.items).toHaveLength(2);
    const out = await mkdtemp(join(tmpdir(), 'trellis-cms-build-'));
    try {
      const local = await runBuilder({
        source: snapshot,
        env: 'dev',
        mode: 'full',
        target: createFolderTarget({ dir: out }),
      });
      expect(local.ok).toBe(true);
      const files = (await readdir(out, { recursive: true })).filter((f) => f.endsWith('.html'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const served = await page(site, `/sites/blog/dev/${file}`);
        expect(served.statusCode).toBe(200);
        expect(served.body).toBe(await readFile(join(out, file), 'utf8'));
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
