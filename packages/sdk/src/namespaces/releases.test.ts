import type { Deployment } from '@trelliscms/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client';
import { createTestServer, sequence, type TestServer } from '../test-support/create-test-server';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const site = () => createClient({ baseUrl: server!.url, apiKey: 'k', retry: false }).site('site:blog');

const release = (state: string, includes: unknown[] = []) => ({
  id: 'release:spring',
  name: 'spring',
  state,
  includes,
});

function deployment(id: string, status: Deployment['status'], extra: Partial<Deployment> = {}): Deployment {
  return {
    id: `deploy:${id}`,
    status,
    validFrom: '2026-05-01T10:00:00.000Z',
    environmentId: 'env:prod',
    releaseId: 'release:spring',
    createdAt: '2026-05-01T10:00:00.000Z',
    ...extra,
  };
}

const version = (n: number) => ({
  id: `post:hello@${n}`,
  itemId: 'post:hello',
  version: n,
  hash: `sha256:${n}${n}${n}`,
  status: 'draft',
  action: 'content.update',
  actor: 'key:k',
  at: `2026-04-0${n}T00:00:00.000Z`,
  fields: { title: `v${n}` },
  body: null,
});

describe('releases.includeItem', () => {
  it("includes the item's head version with the hash and time of its version record", async () => {
    server = await createTestServer({
      'GET /api/content/post/post%3Ahello': () => ({
        body: { id: 'post:hello', type: 'post', fields: {}, version: 3, hash: 'sha256:333' },
      }),
      'GET /api/content/post/post%3Ahello/versions/3': () => ({ body: version(3) }),
      'POST /api/releases/release%3Aspring/includes': ({ body }) => ({ body: release('draft', [body]) }),
    });
    const answer = await site().releases.includeItem('release:spring', 'post', 'post:hello');
    expect(answer.includes).toHaveLength(1);
    expect(server.hits('POST /api/releases/release%3Aspring/includes')[0]?.body).toEqual({
      kind: 'content',
      versionableId: 'post:hello',
      version: 3,
      hash: 'sha256:333',
      at: '2026-04-03T00:00:00.000Z',
    });
  });

  it('includes the version asked for without reading the item', async () => {
    server = await createTestServer({
      'GET /api/content/post/post%3Ahello/versions/2': () => ({ body: version(2) }),
      'POST /api/releases/release%3Aspring/includes': ({ body }) => ({ body: release('draft', [body]) }),
    });
    await site().releases.includeItem('release:spring', 'post', 'post:hello', { version: 2 });
    expect(server.hits('GET /api/content/post/post%3Ahello')).toHaveLength(0);
    expect(server.hits('POST /api/releases/release%3Aspring/includes')[0]?.body).toMatchObject({
      version: 2,
      hash: 'sha256:222',
    });
  });

  it("falls back to the newest recorded version when the item's record has no version", async () => {
    server = await createTestServer({
      'GET /api/content/post/post%3Ahello': () => ({ body: { id: 'post:hello', type: 'post', fields: {} } }),
      'GET /api/content/post/post%3Ahello/versions': () => ({ body: [version(2), version(1)] }),
      'POST /api/releases/release%3Aspring/includes': ({ body }) => ({ body: release('draft', [body]) }),
    });
    await site().releases.includeItem('release:spring', 'post', 'post:hello');
    expect(server.hits('POST /api/releases/release%3Aspring/includes')[0]?.body).toMatchObject({
      version: 2,
    });
  });
});

describe('releases.submitAndApprove', () => {
  it('moves the release to pending, then to approved', async () => {
    server = await createTestServer({
      'POST /api/releases/release%3Aspring/transition': ({ body }) => ({
        body: release((body as { state: string }).state),
      }),
    });
    const approved = await site().releases.submitAndApprove('release:spring', { comment: 'ok' });
    expect(approved.state).toBe('approved');
    expect(server.requests.map((request) => request.body)).toEqual([
      { state: 'pending', comment: 'ok' },
      { state: 'approved', comment: 'ok' },
    ]);
  });
});

describe('releases.getDeployment, retryDeployment and live', () => {
  it('reads a deployment, retries one and reads the live state', async () => {
    server = await createTestServer({
      'GET /api/releases/deployments/deploy%3A1': () => ({
        body: deployment('1', 'failed', { error: 'template post does not parse' }),
      }),
      'POST /api/releases/deployments/deploy%3A1/retry': () => ({
        status: 201,
        body: deployment('1', 'deployed', { buildId: 'b9' }),
      }),
      'GET /api/releases/live': () => ({
        body: {
          envId: 'env:prod',
          atTime: '2026-05-01T12:00:00.000Z',
          revision: 4,
          buildId: null,
          items: [
            {
              itemId: 'post:hello',
              type: 'post',
              version: 3,
              hash: 'sha256:333',
              since: '2026-05-01T10:00:00.000Z',
              cause: 'deployment',
              deploymentId: 'deploy:1',
              releaseId: 'release:spring',
            },
          ],
        },
      }),
    });
    const releases = site().releases;
    expect((await releases.getDeployment('deploy:1')).error).toBe('template post does not parse');
    expect((await releases.retryDeployment('deploy:1')).buildId).toBe('b9');
    const live = await releases.live({ envId: 'env:prod', atTime: '2026-05-01T12:00:00.000Z' });
    expect(live.items[0]?.version).toBe(3);
    expect(server.hits('GET /api/releases/live')[0]?.url).toBe(
      '/api/releases/live?envId=env%3Aprod&atTime=2026-05-01T12%3A00%3A00.000Z',
    );
  });
});

describe('releases.waitForDeployment and deployAndWait', () => {
  it('deploys with async and polls until the deployment is no longer pending', async () => {
    server = await createTestServer({
      'POST /api/releases/release%3Aspring/deploy': () => ({ status: 201, body: deployment('2', 'pending') }),
      'GET /api/releases/deployments/deploy%3A2': sequence(
        { body: deployment('2', 'pending') },
        { body: deployment('2', 'pending', { prebuiltBuildId: 'b1' }) },
        { body: deployment('2', 'deployed', { buildId: 'b1' }) },
      ),
    });
    const seen: string[] = [];
    const final = await site().releases.deployAndWait(
      'release:spring',
      { environmentId: 'env:prod' },
      { pollIntervalMs: 1, onStatus: (d) => seen.push(d.status) },
    );
    expect(final).toMatchObject({ status: 'deployed', buildId: 'b1' });
    expect(seen).toEqual(['pending', 'pending', 'deployed']);
    expect(server.hits('POST /api/releases/release%3Aspring/deploy')[0]?.body).toEqual({
      environmentId: 'env:prod',
      async: true,
    });
  });

  it('resolves with a failed deployment (it does not reject) and gives up after maxWaitMs', async () => {
    server = await createTestServer({
      'GET /api/releases/deployments/deploy%3A3': () => ({
        body: deployment('3', 'failed', { error: 'boom' }),
      }),
      'GET /api/releases/deployments/deploy%3A4': () => ({ body: deployment('4', 'pending') }),
    });
    expect((await site().releases.waitForDeployment('deploy:3')).error).toBe('boom');
    const error = await site()
      .releases.waitForDeployment('deploy:4', { pollIntervalMs: 5, maxWaitMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'DeploymentWaitTimeoutError', deploymentId: 'deploy:4' });
  });
});

describe('releases.rollbackEnvironment', () => {
  it('rolls the live deployment back to the release live before it', async () => {
    const older = deployment('1', 'deployed', {
      releaseId: 'release:winter',
      validFrom: '2026-04-01T00:00:00.000Z',
      createdAt: '2026-04-01T00:00:00.000Z',
    });
    const live = deployment('2', 'deployed');
    server = await createTestServer({
      'GET /api/releases/deployments': () => ({ body: [live, older] }),
      'POST /api/releases/deployments/deploy%3A2/rollback': ({ body }) => ({
        status: 201,
        body: deployment('3', 'deployed', {
          releaseId: (body as { rollbackToReleaseId: string }).rollbackToReleaseId,
          rollbackOf: 'deploy:2',
        }),
      }),
    });
    const result = await site().releases.rollbackEnvironment('env:prod');
    expect(result.rolledBack.id).toBe('deploy:2');
    expect(result.deployment).toMatchObject({ releaseId: 'release:winter', rollbackOf: 'deploy:2' });
    expect(server.hits('GET /api/releases/deployments')[0]?.url).toBe(
      '/api/releases/deployments?envId=env%3Aprod&limit=500',
    );
    expect(server.hits('POST /api/releases/deployments/deploy%3A2/rollback')[0]?.body).toEqual({
      rollbackToReleaseId: 'release:winter',
    });
  });

  it('rejects with NoRollbackTargetError and posts nothing when there is no earlier release', async () => {
    server = await createTestServer({
      'GET /api/releases/deployments': () => ({ body: [deployment('1', 'deployed')] }),
    });
    const error = await site()
      .releases.rollbackEnvironment('env:prod')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'NoRollbackTargetError',
      envId: 'env:prod',
      reason: 'no_earlier_release',
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe('content.unpublish, publishMany and unpublishMany', () => {
  const bulk = {
    ok: true,
    envId: 'env:prod',
    changed: 2,
    unchanged: 1,
    ids: ['post:a', 'post:b'],
    revision: 7,
  };

  it('posts to the item route and to /api/publish and /api/unpublish', async () => {
    server = await createTestServer({
      'POST /api/content/post/post%3Aa/unpublish': () => ({
        body: { id: 'post:a', type: 'post', fields: {}, status: 'draft', publishedEnvs: [] },
      }),
      'POST /api/publish': () => ({ body: bulk }),
      'POST /api/unpublish': () => ({ body: { ...bulk, changed: 1, ids: ['post:a'] } }),
    });
    const content = site().content;
    expect((await content.unpublish('post', 'post:a', { env: 'prod' })).publishedEnvs).toEqual([]);
    expect(await content.publishMany({ type: 'post', status: 'draft', q: 'spring' })).toEqual(bulk);
    expect((await content.unpublishMany({ ids: ['post:a'], env: 'staging' })).changed).toBe(1);
    expect(server.requests.map((request) => request.body)).toEqual([
      { env: 'prod' },
      { type: 'post', status: 'draft', q: 'spring' },
      { ids: ['post:a'], env: 'staging' },
    ]);
  });
});

describe('paged lists', () => {
  it('sends offset and reads the total from X-Total-Count (the page size when a server sends none)', async () => {
    server = await createTestServer({
      'GET /api/releases': () => ({ body: [release('draft')], headers: { 'x-total-count': '7' } }),
      'GET /api/releases/queue': () => ({ body: [deployment('1', 'pending')] }),
      'GET /api/build/history': () => ({ body: [], headers: { 'x-total-count': '3' } }),
    });
    const page = await site().releases.listPage({ state: 'draft', limit: 1, offset: 6 });
    expect(page).toMatchObject({ total: 7, items: [{ id: 'release:spring' }] });
    expect(server.hits('GET /api/releases')[0]?.url).toBe('/api/releases?state=draft&limit=1&offset=6');
    expect((await site().releases.queuePage({ offset: 2 })).total).toBe(1);
    expect(await site().build.historyPage({ offset: 5 })).toEqual({ items: [], total: 3 });
  });

  it('filters and sorts content lists with where and sort', async () => {
    server = await createTestServer({
      'GET /api/content/book': () => ({ body: { items: [], total: 0 } }),
    });
    const items = [];
    for await (const item of site().content.iterate('book', { where: 'year > 2000', sort: '-year' })) {
      items.push(item);
    }
    expect(items).toEqual([]);
    const url = new URL(server.hits('GET /api/content/book')[0]!.url, 'http://x');
    expect(url.searchParams.get('where')).toBe('year > 2000');
    expect(url.searchParams.get('sort')).toBe('-year');
  });
});
