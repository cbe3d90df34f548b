import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { startResponsivenessProbe } from '../../../test/helpers/responsiveness';

// Scripts run in QuickJS (WebAssembly) in a sandbox worker: hooks on item writes refuse or
// derive, after-hooks save a follow-up version, a script past its limits is stopped and
// reported while the API keeps answering.

let site: ContentTestSite;
beforeEach(async () => {
  site = await createContentTestSite();
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'title', type: 'string' },
      { name: 'summary', type: 'text' },
      { name: 'words', type: 'number' },
      { name: 'savedAs', type: 'string' },
      { name: 'stamp', type: 'string' },
      { name: 'announced', type: 'boolean' },
    ],
  });
});
afterEach(async () => {
  await site.close();
});

async function script(body: Record<string, unknown>) {
  const res = await site.request({ method: 'POST', url: '/api/scripts', payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function auditActions(action: string) {
  const res = await site.request({ method: 'GET', url: `/api/audit?action=${action}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Array<{ action: string; target: string; data: Record<string, unknown> }>;
}

describe('beforeSave hooks', () => {
  it('refuse an invalid write with the script’s own message and write nothing', async () => {
    await script({
      name: 'require-summary',
      event: 'beforeSave',
      type: 'post',
      source: 'if (!item.fields.summary) throw new Error("A post needs a summary"); ',
    });
    const refused = await site.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { slug: 'a', title: 'A' },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      error: 'A post needs a summary',
      code: 'hook_rejected',
      event: 'beforeSave',
      hook: 'script require-summary',
    });
    expect((await site.request({ method: 'GET', url: '/api/content/post/post:a' })).statusCode).toBe(404);
    const ok = await site.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { slug: 'a', title: 'A', summary: 'Short' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    // an update that clears it is refused too; the item keeps its summary
    const cleared = await site.request({
      method: 'PATCH',
      url: '/api/content/post/post:a',
      payload: { summary: null },
    });
    expect(cleared.statusCode).toBe(422);
    expect(cleared.json().error).toBe('A post needs a summary');
    const stored = await site.request({ method: 'GET', url: '/api/content/post/post:a' });
    expect(stored.json().fields.summary).toBe('Short');
  });

  it('derive fields that are saved with the write, on create and update', async () => {
    await script({
      name: 'count-words',
      event: 'beforeSave',
      type: 'post',
      source:
        'const text = item.fields.summary || ""; return { fields: { words: text.split(/\\s+/).filter(Boolean).length } };',
    });
    const created = await site.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { slug: 'b', summary: 'one two three' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().fields.words).toBe(3);
    const updated = await site.request({
      method: 'PATCH',
      url: '/api/content/post/post:b',
      payload: { summary: 'just two' },
    });
    expect(updated.json().fields).toMatchObject({ summary: 'just two', words: 2 });
    // one version per write: the derived field is part of it
    expect(updated.json().version).toBe(2);
    const stored = await site.request({ method: 'GET', url: '/api/content/post/post:b' });
    expect(stored.json().fields.words).toBe(2);
  });

  it('stops a script that loops forever within its limit, refuses the write, and /api/health answers meanwhile', async () => {
    await script({ name: 'spin', event: 'beforeSave', source: 'while (true) {}', timeoutMs: 1000 });
    // the sandbox worker is started before measuring (its first start loads QuickJS)
    await site.request({ method: 'POST', url: '/api/scripts/spin/test', payload: {} });
    const health = startResponsivenessProbe({
      request: () => site.platform.app.inject({ method: 'GET', url: '/api/health' }),
    });
    const started = performance.now();
    const res = await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'c' } });
    const tookMs = performance.now() - started;
    const report = await health.stop();
    console.log(
      `looping beforeSave script: write ${Math.round(tookMs)} ms, health ${JSON.stringify({ ...report, latencies: undefined })}`,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'hook_stopped', event: 'beforeSave' });
    expect(res.json().error).toMatch(/script "spin" was stopped: it ran past its time limit of 1000 ms/);
    // stopped by its own 1 s limit, not by the worker's last-resort bound (6 s): generous for a busy machine
    expect(tookMs).toBeLessThan(5000);
    // health answered throughout, every time, never held for the script's second
    expect(report.count).toBeGreaterThan(5);
    expect(report.statuses).toEqual({ 200: report.count });
    expect(report.maxMs).toBeLessThan(900);
    const stops = await auditActions('hook.stopped');
    expect(
      stops.some((entry) => entry.target === 'post:new' && /script "spin"/.test(String(entry.data.detail))),
    ).toBe(true);
    expect((await site.request({ method: 'GET', url: '/api/content/post/post:c' })).statusCode).toBe(404);
  });
});

describe('afterSave, beforePublish and afterPublish hooks', () => {
  it('afterSave: sees the saved item (with its id) and its changes are saved as a follow-up version', async () => {
    await script({
      name: 'remember-id',
      event: 'afterSave',
      type: 'post',
      source: 'if (item.fields.savedAs !== item.id) return { fields: { savedAs: item.id } };',
    });
    const created = await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'd' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ version: 2, fields: { savedAs: 'post:d' } });
    const versions = await site.request({ method: 'GET', url: '/api/content/post/post:d/versions' });
    expect(versions.json()).toHaveLength(2);
  });

  it('beforePublish: a transform’s change is in the published version; a refusal stops the publish', async () => {
    const transform = await site.request({
      method: 'POST',
      url: '/api/transforms',
      payload: {
        name: 'Stamp',
        event: 'beforePublish',
        type: 'post',
        kind: 'set-field',
        field: 'stamp',
        value: 'published as {{ item.slug }}',
      },
    });
    expect(transform.statusCode, transform.body).toBe(201);
    await script({
      name: 'no-drafts',
      event: 'beforePublish',
      source: 'if (item.fields.title === "WIP") return { error: "Work in progress cannot be published" };',
    });
    await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'e', title: 'E' } });
    const published = await site.request({ method: 'POST', url: '/api/content/post/post:e/publish' });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json()).toMatchObject({
      status: 'published',
      version: 2,
      fields: { stamp: 'published as e' },
    });
    await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'f', title: 'WIP' } });
    const refused = await site.request({ method: 'POST', url: '/api/content/post/post:f/publish' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      error: 'Work in progress cannot be published',
      code: 'hook_rejected',
    });
    const f = await site.request({ method: 'GET', url: '/api/content/post/post:f' });
    expect(f.json().status).toBe('draft');
  });

  it('afterPublish: runs once the item is live; its change is saved as a version after the published one', async () => {
    await script({
      name: 'announce',
      event: 'afterPublish',
      type: 'post',
      source: 'console.log("announcing", item.id); return { fields: { announced: true } };',
    });
    await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'g' } });
    const published = await site.request({ method: 'POST', url: '/api/content/post/post:g/publish' });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json()).toMatchObject({ version: 2, fields: { announced: true } });
    // the live version is the one published (1); the hook's change is the head (2)
    expect(published.json().status).toBe('published');
    const v1 = await site.request({ method: 'GET', url: '/api/content/post/post:g/versions/1' });
    expect(v1.json().fields.announced).toBeUndefined();
  });

  it('reports an afterSave script that fails, without undoing the write', async () => {
    await script({ name: 'broken', event: 'afterSave', source: 'throw new Error("boom")' });
    const created = await site.request({ method: 'POST', url: '/api/content/post', payload: { slug: 'h' } });
    expect(created.statusCode).toBe(201);
    expect(created.json().version).toBe(1);
    const failed = await auditActions('hook.failed');
    expect(failed[0]).toMatchObject({ target: 'post:h', data: { event: 'afterSave', detail: 'boom' } });
  });
});

describe('POST /api/scripts/{name}/test', () => {
  it('dry-runs a script on the input given and writes nothing', async () => {
    await script({
      name: 'shout',
      source: 'console.log("event", event); return { fields: { title: item.fields.title.toUpperCase() } };',
    });
    const res = await site.request({
      method: 'POST',
      url: '/api/scripts/shout/test',
      payload: { input: { item: { id: 'post:x', type: 'post', fields: { title: 'hi' } } } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      script: 'shout',
      status: 'ok',
      value: { fields: { title: 'HI' } },
      logs: ['event manual'],
    });
    expect(
      (await site.request({ method: 'POST', url: '/api/scripts/nope/test', payload: {} })).statusCode,
    ).toBe(404);
  });

  it('stops an allocation bomb at its memory limit and reports it', async () => {
    await script({
      name: 'bomb',
      source: 'const keep = []; for (;;) keep.push({ n: keep.length, s: "x" + keep.length });',
      memoryMb: 8,
      timeoutMs: 30_000,
    });
    const res = await site.request({ method: 'POST', url: '/api/scripts/bomb/test', payload: {} });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'stopped',
      reason: 'memory',
      message: 'script "bomb" was stopped: it ran out of its memory limit of 8 MB',
    });
    const stops = await auditActions('hook.stopped');
    expect(stops[0]).toMatchObject({ target: 'script:bomb', data: { event: 'manual' } });
  });

  it('is in the OpenAPI document with its body and result schemas', async () => {
    const document = (await site.request({ method: 'GET', url: '/api/openapi.json' })).json();
    const operation = document.paths['/api/scripts/{name}/test'].post;
    expect(JSON.stringify(operation.responses['200'])).toContain('ScriptRunResult');
    expect(document.components.schemas.Script.properties.memoryMb).toBeDefined();
    expect(document.components.schemas.ScriptEvent.enum).toContain('afterRender');
  });
});
