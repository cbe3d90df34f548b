import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { startTestPlatform, TEST_OWNER_KEY, type TestPlatform } from '../../../test/helpers/test-platform';
import { loadConfig } from '../../config';
import { createEmbeddedEngine } from '../../engines/embedded';
import { IDEMPOTENCY_LABEL } from '../../shared/idempotency-records';
import { buildApp } from '../app';

const POST_TYPE = {
  name: 'post',
  label: 'Post',
  nodeLabel: 'Post',
  keyField: 'title',
  fields: [{ name: 'title', type: 'string', required: true, minLength: 2 }],
};

let site: ContentTestSite | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await site?.close();
  site = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function contentSite(clock?: { now(): Date }) {
  site = await createContentTestSite({ clock });
  await site.createType(POST_TYPE);
  return site;
}

const withKey = (key: string, headers: Record<string, string> = {}) => ({
  'idempotency-key': key,
  ...headers,
});

async function count(s: ContentTestSite, label: string): Promise<number> {
  return (await s.graph.findNodes({ label, limit: 1 })).total;
}

describe('Idempotency-Key', () => {
  it('gives a retried create the first answer, and writes once', async () => {
    const s = await contentSite();
    const send = () =>
      s.request({
        method: 'POST',
        url: '/api/content/post',
        payload: { title: 'Hello' },
        headers: withKey('k-1'),
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await send();
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(retry.headers.etag).toBe(first.headers.etag);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // Without the key the same create is a second write, refused as a duplicate.
    expect(
      (await s.request({ method: 'POST', url: '/api/content/post', payload: { title: 'Hello' } })).statusCode,
    ).toBe(409);
    const versions = (
      await s.request({ method: 'GET', url: '/api/content/post/post:hello/versions' })
    ).json();
    expect(versions).toHaveLength(1);
    expect((await s.graph.auditRecords()).filter((r) => r.action === 'content.create')).toHaveLength(1);
  });

  it('makes a retried PUT /templates/{name} write one version, not two', async () => {
    const s = await contentSite();
    expect(
      (await s.request({ method: 'POST', url: '/api/templates', payload: { name: 'home', content: 'v1' } }))
        .statusCode,
    ).toBe(201);
    const put = () =>
      s.request({
        method: 'PUT',
        url: '/api/templates/home',
        payload: { content: 'v2' },
        headers: withKey('put-1'),
      });
    const first = await put();
    const retry = await put();
    expect(first.json().version).toBe(2);
    expect(retry.json()).toEqual(first.json());
    const versions = (await s.request({ method: 'GET', url: '/api/templates/home/versions' })).json();
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
  });

  it('refuses the same key with another request (422) and writes nothing', async () => {
    const s = await contentSite();
    await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'One' },
      headers: withKey('k'),
    });
    const other = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Two' },
      headers: withKey('k'),
    });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const elsewhere = await s.request({
      method: 'POST',
      url: '/api/templates',
      payload: { name: 'x', content: 'x' },
      headers: withKey('k'),
    });
    expect(elsewhere.statusCode).toBe(422);
    expect((await s.request({ method: 'GET', url: '/api/content/post' })).json()).toHaveLength(1);
    expect((await s.request({ method: 'GET', url: '/api/templates' })).json()).toHaveLength(0);
  });

  it('keeps keys apart per caller and per site', async () => {
    const s = await contentSite();
    const editor = await s.platform.addUser({ name: 'ed', siteId: s.siteId, role: 'editor' });
    const asOwner = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Mine' },
      headers: withKey('same'),
    });
    const asEditor = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Yours' },
      headers: withKey('same', { authorization: `Bearer ${editor.key}` }),
    });
    expect([asOwner.statusCode, asEditor.statusCode]).toEqual([201, 201]);
    const editorRetry = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Yours' },
      headers: withKey('same', { authorization: `Bearer ${editor.key}` }),
    });
    expect(editorRetry.headers['idempotent-replayed']).toBe('true');
    expect(editorRetry.json().id).toBe('post:yours');
    const other = await s.platform.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: `Bearer ${TEST_OWNER_KEY}` },
      payload: { name: 'Other', slug: 'other', starterKit: 'none' },
    });
    const otherHeaders = { authorization: `Bearer ${TEST_OWNER_KEY}`, 'x-site-id': other.json().id };
    expect(
      (
        await s.platform.app.inject({
          method: 'POST',
          url: '/api/types',
          headers: otherHeaders,
          payload: POST_TYPE,
        })
      ).statusCode,
    ).toBe(201);
    const onOtherSite = await s.platform.app.inject({
      method: 'POST',
      url: '/api/content/post',
      headers: { ...otherHeaders, 'idempotency-key': 'same' },
      payload: { title: 'Mine' },
    });
    expect(onOtherSite.statusCode).toBe(201);
    expect(onOtherSite.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not keep a failed answer: a retry runs again', async () => {
    const s = await contentSite();
    const bad = () =>
      s.request({
        method: 'POST',
        url: '/api/content/post',
        payload: { title: 'x' },
        headers: withKey('fix-me'),
      });
    expect((await bad()).statusCode).toBe(400);
    expect((await bad()).statusCode).toBe(400);
    expect(await count(s, IDEMPOTENCY_LABEL)).toBe(0);
    // Released, so the key is free for the corrected request.
    const fixed = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'xy' },
      headers: withKey('fix-me'),
    });
    expect(fixed.statusCode).toBe(201);
  });

  it('forgets a key after 24 hours', async () => {
    let now = new Date('2026-05-01T12:00:00.000Z');
    const s = await contentSite({ now: () => now });
    await s.request({ method: 'POST', url: '/api/templates', payload: { name: 'home', content: 'v1' } });
    const put = () =>
      s.request({
        method: 'PUT',
        url: '/api/templates/home',
        payload: { content: 'v2' },
        headers: withKey('day'),
      });
    expect((await put()).json().version).toBe(2);
    now = new Date('2026-05-02T11:59:00.000Z');
    expect((await put()).json().version).toBe(2);
    now = new Date('2026-05-02T12:00:01.000Z');
    expect((await put()).json().version).toBe(3);
    // Expired records are swept (at most every 10 minutes per graph).
    now = new Date('2026-05-03T13:00:00.000Z');
    await s.request({
      method: 'PUT',
      url: '/api/templates/home',
      payload: { content: 'v4' },
      headers: withKey('other'),
    });
    await expect.poll(() => count(s, IDEMPOTENCY_LABEL)).toBe(1);
  });

  it('rejects a malformed key with 400', async () => {
    const s = await contentSite();
    const response = await s.request({
      method: 'POST',
      url: '/api/content/post',
      payload: { title: 'Hello' },
      headers: withKey('x'.repeat(256)),
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Idempotency-Key');
  });
});

describe('Idempotency-Key across processes and restarts', () => {
  it('answers a retry sent to another server on the same data directory, and after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-idem-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const start = async (): Promise<FastifyInstance> => {
      const config = loadConfig({
        CMS_DATA_DIR: dataDir,
        CMS_OWNER_KEY: TEST_OWNER_KEY,
        LOG_LEVEL: 'silent',
        CMS_SCHEDULER: '0',
        RATE_LIMIT_MAX: '100000',
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      });
      const app = await buildApp({ config, engine: createEmbeddedEngine({ dataDir }), logger: false });
      await app.ready();
      return app;
    };
    const headers = { authorization: `Bearer ${TEST_OWNER_KEY}`, 'idempotency-key': 'create-site-1' };
    const create = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/api/sites',
        headers,
        payload: { name: 'Retried', starterKit: 'none' },
      });

    const a = await start();
    const b = await start();
    const first = await create(a);
    expect(first.statusCode, first.body).toBe(201);
    const fromB = await create(b);
    expect(fromB.statusCode).toBe(201);
    expect(fromB.headers['idempotent-replayed']).toBe('true');
    expect(fromB.json()).toEqual(first.json());
    await a.close();
    await b.close();

    const restarted = await start();
    try {
      const afterRestart = await create(restarted);
      expect(afterRestart.json()).toEqual(first.json());
      const sites = await restarted.inject({ method: 'GET', url: '/api/sites', headers });
      expect(sites.json().filter((s: { name: string }) => s.name === 'Retried')).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });
});

describe('Idempotency-Key while the first request runs', () => {
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.close();
    platform = undefined;
  });

  it('answers 409 idempotency_key_in_progress, then the first answer once it is done', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    platform = await startTestPlatform({
      beforeReady: (app) => {
        app.post('/api/test/slow', { config: { siteScope: 'none' } }, async () => {
          await gate;
          return { ok: true, at: Date.now() };
        });
      },
    });
    const app = platform.app;
    const headers = { authorization: `Bearer ${platform.ownerKey}`, 'idempotency-key': 'slow-1' };
    const first = app.inject({ method: 'POST', url: '/api/test/slow', headers, payload: {} });
    const { platform: graph } = app.trellis;
    await expect.poll(async () => (await graph.findNodes({ label: IDEMPOTENCY_LABEL })).total).toBe(1);
    const meanwhile = await app.inject({ method: 'POST', url: '/api/test/slow', headers, payload: {} });
    expect(meanwhile.statusCode).toBe(409);
    expect(meanwhile.json()).toMatchObject({ code: 'idempotency_key_in_progress' });
    expect(meanwhile.headers['retry-after']).toBe('1');
    open();
    const done = await first;
    expect(done.statusCode).toBe(200);
    const retry = await app.inject({ method: 'POST', url: '/api/test/slow', headers, payload: {} });
    expect(retry.json()).toEqual(done.json());
  });
});

describe('Idempotency-Key on routes with hooks of their own', () => {
  it('claims the key before a write route’s own hooks and leaves read routes alone', async () => {
    const seen: string[] = [];
    let writes = 0;
    const platform = await startTestPlatform({
      beforeReady: (app) => {
        app.post(
          '/api/test-idempotent-write',
          {
            config: { siteScope: 'none' },
            preHandler: (request, _reply, done) => {
              seen.push(`preHandler claimed=${request.idempotencyClaim !== null}`);
              done();
            },
            onSend: (_request, _reply, payload, done) => {
              seen.push('onSend');
              done(null, payload);
            },
          },
          async () => {
            writes += 1;
            return { writes };
          },
        );
        app.get('/api/test-idempotent-read', { config: { siteScope: 'none' } }, async (request) => ({
          claimed: request.idempotencyClaim !== null,
        }));
      },
    });
    cleanups.push(() => platform.close());
    const headers = { authorization: `Bearer ${TEST_OWNER_KEY}`, 'idempotency-key': 'own-hooks' };
    const send = () => platform.app.inject({ method: 'POST', url: '/api/test-idempotent-write', headers });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ writes: 1 });
    const retry = await send();
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(writes).toBe(1);
    // The claim came first; the replay skipped the route's preHandler and still ran its onSend.
    expect(seen).toEqual(['preHandler claimed=true', 'onSend', 'onSend']);

    const read = await platform.app.inject({ method: 'GET', url: '/api/test-idempotent-read', headers });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ claimed: false });
    expect(read.headers['idempotent-replayed']).toBeUndefined();
  });
});
