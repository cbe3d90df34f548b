import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { DeploymentScheduler } from '../deployment-scheduler';
import { ReleasePublisher } from '../release-publisher';

let site: ContentTestSite;
let app: FastifyInstance;
let clock: Date;

beforeEach(async () => {
  site = await createContentTestSite();
  app = site.platform.app;
  clock = new Date('2026-05-01T12:00:00.000Z');
  app.releases.now = () => clock;
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'title',
    fields: [{ name: 'title', type: 'string', required: true }],
  });
});
afterEach(async () => {
  await site.close();
});

const post = (url: string, payload: unknown, headers?: Record<string, string>) =>
  site.request({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });
const get = (url: string) => site.request({ method: 'GET', url });

/** Creates a post and answers its include (version 1 with its hash). */
async function item(title: string) {
  const created = await post('/api/content/post', { title });
  expect(created.statusCode, created.body).toBe(201);
  const record = created.json() as { id: string; version: number; hash: string };
  return { kind: 'content', versionableId: record.id, version: record.version, hash: record.hash };
}

async function approvedRelease(name: string, includes: unknown[]) {
  expect((await post('/api/releases', { name, includes })).statusCode).toBe(201);
  expect((await post(`/api/releases/release:${name}/transition`, { state: 'pending' })).statusCode).toBe(200);
  const approved = await post(`/api/releases/release:${name}/transition`, { state: 'approved' });
  expect(approved.statusCode, approved.body).toBe(200);
  return approved.json();
}

async function deploy(name: string, body: Record<string, unknown>) {
  return post(`/api/releases/release:${name}/deploy`, body);
}

async function nodeCount(label: string) {
  return (await site.graph.findNodes({ label, limit: 1 })).total;
}

describe('environments', () => {
  it('lists dev and prod by default and upserts others', async () => {
    const list = await get('/api/releases/environments');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((env: { id: string }) => env.id)).toEqual(['env:dev', 'env:prod']);
    const put = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: {
        order: 1,
        autoBuild: true,
        requiresApproval: true,
        publicUrlOverride: 'https://staging.example.org',
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({
      id: 'env:staging',
      name: 'staging',
      autoBuild: true,
      requiresApproval: true,
    });
    const again = await get('/api/releases/environments');
    expect(again.json().map((env: { id: string }) => env.id)).toEqual(['env:dev', 'env:prod', 'env:staging']);
  });

  it('answers 400 on a bad body or id and 403 for a viewer', async () => {
    const bad = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:x',
      payload: { order: -1 },
    });
    expect(bad.statusCode).toBe(400);
    const badId = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/staging',
      payload: {},
    });
    expect(badId.statusCode).toBe(400);
    const viewer = await site.platform.addUser({ name: 'v', siteId: site.siteId, role: 'viewer' });
    const forbidden = await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:x',
      payload: {},
      headers: { authorization: `Bearer ${viewer.key}` },
    });
    expect(forbidden.statusCode).toBe(403);
  });

  it('needs an admin of the site to create or change an environment (publishers and editors get 403)', async () => {
    const as = async (role: 'publisher' | 'editor' | 'admin') => {
      const user = await site.platform.addUser({ name: role, siteId: site.siteId, role });
      return site.request({
        method: 'PUT',
        url: '/api/releases/environments/env:prod',
        payload: { order: 1, autoBuild: true, requiresApproval: true },
        headers: { authorization: `Bearer ${user.key}` },
      });
    };
    for (const role of ['publisher', 'editor'] as const) {
      const refused = await as(role);
      expect(refused.statusCode, role).toBe(403);
      expect(refused.json().code).toBe('forbidden');
    }
    expect(await nodeCount('Environment')).toBe(0);
    const prod = (await get('/api/releases/environments')).json()[1];
    expect(prod).toMatchObject({ id: 'env:prod', autoBuild: false, requiresApproval: false });
    const admin = await as('admin');
    expect(admin.statusCode, admin.body).toBe(200);
    expect(admin.json()).toMatchObject({ id: 'env:prod', autoBuild: true, requiresApproval: true });
  });

  it('answers 400 unknown_environment for an environment the site does not have, and creates none', async () => {
    await approvedRelease('r', []);
    const checks = [
      await deploy('r', { environmentId: 'env:staging' }),
      await post('/api/releases/drip-schedule', {
        releaseIds: ['release:r'],
        windowStart: '2026-05-02T00:00:00.000Z',
        windowEnd: '2026-05-03T00:00:00.000Z',
        pattern: 'even',
        environmentId: 'env:staging',
      }),
      await get('/api/releases/deployments?envId=env:staging'),
      await get('/api/releases/queue?envId=env:staging'),
      await get('/api/releases/replay?envId=env:staging'),
    ];
    for (const res of checks) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'unknown_environment',
        environments: ['env:dev', 'env:prod'],
      });
      expect(res.json().error).toContain('env:staging');
      expect(res.json().error).toContain('PUT /api/releases/environments');
    }
    expect(await nodeCount('Deployment')).toBe(0);
    expect(await nodeCount('Environment')).toBe(0);
    expect((await get('/api/releases/environments')).json()).toHaveLength(2);
    // dev and prod always exist; an environment created explicitly is known at once.
    expect((await get('/api/releases/deployments?envId=env:dev')).statusCode).toBe(200);
    await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: { order: 2 },
    });
    expect((await get('/api/releases/queue?envId=env:staging')).statusCode).toBe(200);
    expect((await deploy('r', { environmentId: 'env:staging' })).statusCode).toBe(201);
  });
});

describe('lists', () => {
  const ids = (response: { json(): unknown }) => (response.json() as Array<{ id: string }>).map((r) => r.id);

  it('pages releases, deployments and the queue with limit and offset; X-Total-Count counts them all', async () => {
    for (const [index, name] of ['a', 'b', 'c', 'd', 'e'].entries()) {
      clock = new Date(Date.parse('2026-05-01T12:00:00.000Z') + index * 1000);
      await approvedRelease(name, []);
    }
    const all = await get('/api/releases');
    expect(ids(all)).toEqual(['release:e', 'release:d', 'release:c', 'release:b', 'release:a']);
    expect(all.headers['x-total-count']).toBe('5');
    const page = await get('/api/releases?limit=2&offset=2');
    expect(ids(page)).toEqual(['release:c', 'release:b']);
    expect(page.headers['x-total-count']).toBe('5');
    expect(ids(await get('/api/releases?offset=4'))).toEqual(['release:a']);
    expect(await get('/api/releases?offset=9').then((r) => [r.json(), r.headers['x-total-count']])).toEqual([
      [],
      '5',
    ]);
    expect((await get('/api/releases?offset=-1')).statusCode).toBe(400);

    const scheduled: string[] = [];
    for (const [index, name] of ['a', 'b', 'c', 'd'].entries()) {
      clock = new Date(Date.parse('2026-05-01T13:00:00.000Z') + index * 1000);
      const validFrom = new Date(Date.parse('2026-06-01T00:00:00.000Z') + index * 86_400_000).toISOString();
      const deployed = await deploy(name, { environmentId: 'env:prod', validFrom });
      expect(deployed.statusCode, deployed.body).toBe(201);
      scheduled.push(deployed.json().id);
    }
    const queue = await get('/api/releases/queue?limit=2&offset=1');
    expect(ids(queue)).toEqual(scheduled.slice(1, 3));
    expect(queue.headers['x-total-count']).toBe('4');
    const deployments = await get('/api/releases/deployments?limit=3&offset=1&envId=env:prod');
    expect(ids(deployments)).toEqual([...scheduled].reverse().slice(1, 4));
    expect(deployments.headers['x-total-count']).toBe('4');
  });
});

describe('releases', () => {
  it('creates a draft with includes, reads it back and lists it by state', async () => {
    const include = await item('Hello');
    const created = await post('/api/releases', { name: 'r1', description: 'first', includes: [include] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ id: 'release:r1', state: 'draft', includes: [include] });
    expect((await get('/api/releases/release:r1')).json().includes).toHaveLength(1);
    expect((await get('/api/releases?state=draft')).json()).toHaveLength(1);
    expect((await get('/api/releases?state=approved')).json()).toHaveLength(0);
    expect((await post('/api/releases', { name: 'r1' })).statusCode).toBe(409);
    expect((await get('/api/releases/release:nope')).statusCode).toBe(404);
    expect((await get('/api/releases?limit=0')).statusCode).toBe(400);
  });

  it('refuses includes with a wrong hash, a missing version, an unknown kind or a duplicate (400, nothing written)', async () => {
    const include = await item('Hello');
    for (const bad of [
      { ...include, hash: 'sha256:0000' },
      { ...include, version: 9 },
      { ...include, kind: 'template' },
    ]) {
      const res = await post('/api/releases', { name: 'bad', includes: [bad] });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('business_rule');
    }
    expect((await post('/api/releases', { name: 'dup', includes: [include, include] })).statusCode).toBe(400);
    expect(await nodeCount('Release')).toBe(0);
  });

  it('adds includes only while draft (409 after) and 404 for an unknown release', async () => {
    const a = await item('A');
    const b = await item('B');
    await post('/api/releases', { name: 'r', includes: [a] });
    const added = await post('/api/releases/release:r/includes', b);
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().includes).toHaveLength(2);
    expect((await post('/api/releases/release:r/includes', b)).statusCode).toBe(400);
    await post('/api/releases/release:r/transition', { state: 'pending' });
    const late = await post('/api/releases/release:r/includes', { ...b, versionableId: 'post:c' });
    expect(late.statusCode).toBe(409);
    expect((await post('/api/releases/release:nope/includes', b)).statusCode).toBe(404);
  });

  it('runs one review per include on pending, approves, and refuses other moves with 409', async () => {
    const a = await item('A');
    await post('/api/releases', { name: 'r', includes: [a] });
    expect((await post('/api/releases/release:r/transition', { state: 'approved' })).statusCode).toBe(409);
    const pending = await post('/api/releases/release:r/transition', { state: 'pending' });
    expect(pending.json()).toMatchObject({ state: 'pending' });
    expect(pending.json().reviews).toEqual([
      expect.objectContaining({
        versionableId: a.versionableId,
        status: 'passed',
        required: true,
        dependencyHash: expect.any(String),
      }),
    ]);
    expect((await post('/api/releases/release:r/transition', { state: 'approved' })).json().state).toBe(
      'approved',
    );
    expect((await post('/api/releases/release:r/transition', { state: 'deployed' })).statusCode).toBe(409);
    expect((await post('/api/releases/release:r/transition', { state: 'draft' })).statusCode).toBe(409);
    // any -> pending forces a re-review
    expect((await post('/api/releases/release:r/transition', { state: 'pending' })).json().state).toBe(
      'pending',
    );
    expect((await post('/api/releases/release:r/transition', { state: 'bogus' })).statusCode).toBe(400);
  });
});

describe('deploy', () => {
  it('deploys an approved release at once and makes the release deployed', async () => {
    await approvedRelease('r', [await item('A')]);
    const res = await deploy('r', { environmentId: 'env:prod', intent: 'launch' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'deployed',
      environmentId: 'env:prod',
      releaseId: 'release:r',
    });
    expect(res.json().id).toMatch(/^deploy:/);
    expect((await get('/api/releases/release:r')).json().state).toBe('deployed');
    expect((await get('/api/releases/deployments?envId=env:prod')).json()).toHaveLength(1);
    expect((await get('/api/releases/deployments?envId=env:dev')).json()).toHaveLength(0);
    const audit = await site.graph.auditRecords();
    expect(
      audit.some((record) => record.action === 'release.deploy' && record.target === res.json().id),
    ).toBe(true);
  });

  it('refuses a draft (409), an unknown release (404), an unknown environment and a bad body (400)', async () => {
    await post('/api/releases', { name: 'd' });
    expect((await deploy('d', { environmentId: 'env:prod' })).statusCode).toBe(409);
    await approvedRelease('r', []);
    const unknown = await deploy('r', { environmentId: 'env:nowhere' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().code).toBe('unknown_environment');
    expect((await deploy('nope', { environmentId: 'env:prod' })).statusCode).toBe(404);
    expect((await deploy('r', { environmentId: 'prod' })).statusCode).toBe(400);
    expect(await nodeCount('Deployment')).toBe(0);
  });

  it('answers 409 review_gate once an included item got a new version, until it is re-reviewed', async () => {
    const a = await item('A');
    await approvedRelease('r', [a]);
    const patched = await site.request({
      method: 'PATCH',
      url: `/api/content/post/${a.versionableId}`,
      payload: { title: 'A2' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const gated = await deploy('r', { environmentId: 'env:prod' });
    expect(gated.statusCode).toBe(409);
    expect(gated.json()).toMatchObject({ code: 'review_gate', stale: [a.versionableId] });
    expect(await nodeCount('Deployment')).toBe(0);
    await post('/api/releases/release:r/transition', { state: 'pending' });
    await post('/api/releases/release:r/transition', { state: 'approved' });
    expect((await deploy('r', { environmentId: 'env:prod' })).statusCode).toBe(201);
  });

  it('answers 409 review_gate on a blocking finding; an admin may skip the gate except where approval is required', async () => {
    const a = await item('A');
    await post('/api/releases', { name: 'r', includes: [a] });
    // Deleting through the API keeps a pinned version (see "integrity"); a blocking finding
    // needs the store to have lost the item and its version, so remove their nodes directly.
    expect(await site.graph.deleteNode(a.versionableId)).toBe(true);
    expect(await site.graph.deleteNode(`${a.versionableId}@${a.version}`)).toBe(true);
    const pending = await post('/api/releases/release:r/transition', { state: 'pending' });
    expect(pending.json().reviews[0].status).toBe('failed');
    await post('/api/releases/release:r/transition', { state: 'approved' });
    await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:staging',
      payload: { order: 1 },
    });
    const gated = await deploy('r', { environmentId: 'env:staging' });
    expect(gated.statusCode).toBe(409);
    expect(gated.json().code).toBe('review_gate');
    expect(gated.json().blocking.length).toBeGreaterThan(0);

    const publisher = await site.platform.addUser({ name: 'p', siteId: site.siteId, role: 'publisher' });
    const notAdmin = await post(
      '/api/releases/release:r/deploy',
      { environmentId: 'env:staging', skipReviewGate: true },
      { authorization: `Bearer ${publisher.key}` },
    );
    expect(notAdmin.statusCode).toBe(403);
    await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:prod',
      payload: { order: 1, requiresApproval: true },
    });
    const guarded = await deploy('r', { environmentId: 'env:prod', skipReviewGate: true });
    expect(guarded.statusCode).toBe(409);
    const skipped = await deploy('r', { environmentId: 'env:staging', skipReviewGate: true });
    expect(skipped.statusCode, skipped.body).toBe(201);
    // The skipped gate is not a skipped build: the deployment went live with its build.
    expect(skipped.json()).toMatchObject({ status: 'deployed', buildId: expect.any(String) });
  });

  it('keeps a future-dated deployment pending in the queue, soonest first; the release stays approved', async () => {
    await approvedRelease('r', []);
    const later = await deploy('r', { environmentId: 'env:prod', validFrom: '2026-05-03T00:00:00.000Z' });
    const sooner = await deploy('r', { environmentId: 'env:prod', validFrom: '2026-05-02T00:00:00+00:00' });
    expect(later.json().status).toBe('pending');
    expect((await get('/api/releases/release:r')).json().state).toBe('approved');
    const queue = (await get('/api/releases/queue')).json();
    expect(queue.map((d: { id: string }) => d.id)).toEqual([sooner.json().id, later.json().id]);
    expect((await get('/api/releases/queue?envId=env:dev')).json()).toEqual([]);
    expect((await get('/api/releases/queue?limit=1')).json()).toHaveLength(1);
  });

  it('refuses to deploy to env:dev (400: dev builds every head)', async () => {
    await approvedRelease('r', []);
    const res = await deploy('r', { environmentId: 'env:dev' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('business_rule');
    expect(await nodeCount('Deployment')).toBe(0);
  });

  it('publishing to an environment with autoBuild starts a build of it; without, none', async () => {
    const a = await item('A');
    await post(`/api/content/post/${a.versionableId}/publish`, {});
    expect((await get('/api/build/history?env=prod')).json()).toHaveLength(0);
    await site.request({
      method: 'PUT',
      url: '/api/releases/environments/env:prod',
      payload: { order: 1, autoBuild: true },
    });
    await post(`/api/content/post/${a.versionableId}/unpublish`, {});
    const history = (await get('/api/build/history?env=prod')).json();
    expect(history).toHaveLength(1);
    expect((await get('/api/build/history?env=dev')).json()).toHaveLength(0);
  });
});

describe('rollback and replay', () => {
  it('rolls back to the older release, marks the old deployment superseded, and replays each moment', async () => {
    await approvedRelease('a', [await item('A')]);
    await approvedRelease('b', [await item('B')]);
    expect((await get('/api/releases/replay?envId=env:prod')).statusCode).toBe(404);
    const t1 = clock;
    const first = (await deploy('a', { environmentId: 'env:prod' })).json();
    clock = new Date(t1.getTime() + 60_000);
    const second = (await deploy('b', { environmentId: 'env:prod' })).json();
    clock = new Date(t1.getTime() + 120_000);
    const rolled = await post(`/api/releases/deployments/${second.id}/rollback`, {
      rollbackToReleaseId: 'release:a',
    });
    expect(rolled.statusCode, rolled.body).toBe(201);
    expect(rolled.json()).toMatchObject({
      status: 'deployed',
      releaseId: 'release:a',
      rollbackOf: second.id,
    });
    expect(rolled.json().auditSeq).toEqual(expect.any(Number));
    const list = (await get('/api/releases/deployments')).json() as Array<{
      id: string;
      status: string;
      supersededBy?: string;
    }>;
    expect(list.find((d) => d.id === second.id)).toMatchObject({
      status: 'superseded',
      supersededBy: rolled.json().id,
    });

    const at = (ms: number) =>
      get(`/api/releases/replay?envId=env:prod&atTime=${new Date(t1.getTime() + ms).toISOString()}`);
    expect((await at(-1)).statusCode).toBe(404);
    expect((await at(30_000)).json()).toMatchObject({
      deployment: { id: first.id },
      release: { id: 'release:a' },
    });
    expect((await at(90_000)).json().deployment.id).toBe(second.id);
    expect((await at(90_000)).json().includes[0].versionableId).toBe('post:b');
    expect((await get('/api/releases/replay?envId=env:prod')).json().deployment.id).toBe(rolled.json().id);
    expect((await get('/api/releases/replay')).statusCode).toBe(400);
  });

  it('refuses to roll back a superseded or pending deployment (409), to a never-live release (400), an unknown one (404)', async () => {
    await approvedRelease('a', []);
    await approvedRelease('b', []);
    await approvedRelease('c', []);
    await deploy('a', { environmentId: 'env:prod' });
    const live = (await deploy('b', { environmentId: 'env:prod' })).json();
    expect(
      (await post(`/api/releases/deployments/${live.id}/rollback`, { rollbackToReleaseId: 'release:c' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await post(`/api/releases/deployments/${live.id}/rollback`, { rollbackToReleaseId: 'release:b' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await post(`/api/releases/deployments/${live.id}/rollback`, { rollbackToReleaseId: 'release:zz' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await post('/api/releases/deployments/deploy:nope/rollback', { rollbackToReleaseId: 'release:a' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await post(`/api/releases/deployments/${live.id}/rollback`, { rollbackToReleaseId: 'release:a' }))
        .statusCode,
    ).toBe(201);
    expect(
      (await post(`/api/releases/deployments/${live.id}/rollback`, { rollbackToReleaseId: 'release:a' }))
        .statusCode,
    ).toBe(409);
    const pending = (
      await deploy('c', { environmentId: 'env:prod', validFrom: '2030-01-01T00:00:00Z' })
    ).json();
    expect(
      (await post(`/api/releases/deployments/${pending.id}/rollback`, { rollbackToReleaseId: 'release:a' }))
        .statusCode,
    ).toBe(409);
  });
});

describe('drip', () => {
  const window = { windowStart: '2026-06-01T00:00:00.000Z', windowEnd: '2026-06-01T04:00:00.000Z' };

  it('previews a seeded schedule without writing anything', async () => {
    const before = (await site.graph.auditRecords()).length;
    const body = { ...window, count: 5, pattern: 'random', seed: 'launch', minSpacingMs: 60_000 };
    const a = await post('/api/releases/drip-preview', body);
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().schedule.timestamps).toHaveLength(5);
    expect((await post('/api/releases/drip-preview', body)).json()).toEqual(a.json());
    const even = await post('/api/releases/drip-preview', {
      ...window,
      releaseIds: ['release:x', 'release:y'],
    });
    expect(even.json().pairs).toEqual([
      { releaseId: 'release:x', validFrom: '2026-06-01T00:00:00.000Z' },
      { releaseId: 'release:y', validFrom: '2026-06-01T04:00:00.000Z' },
    ]);
    expect((await site.graph.auditRecords()).length).toBe(before);
  });

  it('answers 400 for an inverted window, both or neither of count and releaseIds, and spacing that does not fit', async () => {
    expect(
      (await post('/api/releases/drip-preview', { ...window, windowEnd: window.windowStart, count: 2 }))
        .statusCode,
    ).toBe(400);
    expect((await post('/api/releases/drip-preview', { ...window })).statusCode).toBe(400);
    expect(
      (await post('/api/releases/drip-preview', { ...window, count: 2, releaseIds: ['release:x'] }))
        .statusCode,
    ).toBe(400);
    const tight = await post('/api/releases/drip-preview', { ...window, count: 10, minSpacingMs: 3_600_000 });
    expect(tight.statusCode).toBe(400);
    expect(tight.json().code).toBe('business_rule');
  });

  it('schedules every release atomically: one draft among them writes nothing (409)', async () => {
    await approvedRelease('a', []);
    await approvedRelease('b', []);
    await post('/api/releases', { name: 'draft' });
    const body = { ...window, environmentId: 'env:prod', pattern: 'even' };
    const refused = await post('/api/releases/drip-schedule', {
      ...body,
      releaseIds: ['release:a', 'release:b', 'release:draft'],
    });
    expect(refused.statusCode).toBe(409);
    expect(
      (await post('/api/releases/drip-schedule', { ...body, releaseIds: ['release:a', 'release:zz'] }))
        .statusCode,
    ).toBe(404);
    expect((await post('/api/releases/drip-schedule', { ...body, count: 2 })).statusCode).toBe(400);
    expect(await nodeCount('Deployment')).toBe(0);

    const scheduled = await post('/api/releases/drip-schedule', {
      ...body,
      releaseIds: ['release:b', 'release:a'],
    });
    expect(scheduled.statusCode, scheduled.body).toBe(201);
    expect(scheduled.json().deployments).toMatchObject([
      { releaseId: 'release:b', status: 'pending', validFrom: window.windowStart },
      { releaseId: 'release:a', status: 'pending', validFrom: window.windowEnd },
    ]);
    const queue = (await get('/api/releases/queue?envId=env:prod')).json();
    expect(queue.map((d: { releaseId: string }) => d.releaseId)).toEqual(['release:b', 'release:a']);
  });
});

describe('deployment scheduler', () => {
  function scheduler(now: () => Date) {
    return new DeploymentScheduler({
      engine: site.platform.engine,
      platform: app.trellis.platform,
      publisher: new ReleasePublisher({ builds: app.builds, log: app.log, clock: { now } }),
      now,
      log: app.log,
      intervalMs: 60_000,
      prebuild: false,
    });
  }

  it('is off when CMS_SCHEDULER is false', () => {
    expect(app.releases.scheduler).toBeNull();
  });

  it('fires due deployments once, even with two schedulers racing over the same graph', async () => {
    await approvedRelease('r', []);
    const ids: string[] = [];
    for (let minute = 1; minute <= 6; minute += 1) {
      const validFrom = new Date(clock.getTime() + minute * 60_000).toISOString();
      ids.push((await deploy('r', { environmentId: 'env:prod', validFrom })).json().id);
    }
    const notYet = await scheduler(() => clock).tick();
    expect(notYet).toEqual({ attempted: 0, fired: [] });
    const later = new Date(clock.getTime() + 4 * 60_000);
    const [a, b] = await Promise.all([scheduler(() => later).tick(), scheduler(() => later).tick()]);
    // Per environment in validFrom order; a scheduler that finds one held by the other leaves it the rest.
    expect(a.attempted + b.attempted).toBeGreaterThanOrEqual(4);
    const fired = [...a.fired, ...b.fired].map((d) => d.id).sort();
    expect(fired).toEqual(ids.slice(0, 4).sort());
    const audit = await site.graph.auditRecords();
    for (const id of ids.slice(0, 4)) {
      expect(
        audit.filter((record) => record.action === 'deployment.live' && record.target === id),
      ).toHaveLength(1);
    }
    clock = later;
    expect((await get('/api/releases/queue')).json().map((d: { id: string }) => d.id)).toEqual(ids.slice(4));
    expect((await get('/api/releases/release:r')).json().state).toBe('deployed');
  });

  it('re-arms from the stored queue: a new scheduler (as after a restart) fires what an earlier one left', async () => {
    await approvedRelease('r', []);
    const validFrom = new Date(clock.getTime() + 60_000).toISOString();
    const pending = (await deploy('r', { environmentId: 'env:prod', validFrom })).json();
    const first = scheduler(() => clock);
    await first.tick();
    await first.stop();
    const afterRestart = await scheduler(() => new Date(clock.getTime() + 61_000)).tick();
    expect(afterRestart.fired.map((d) => d.id)).toEqual([pending.id]);
  });
});

describe('deployment scheduler plugin', () => {
  it('runs when CMS_SCHEDULER is on and fires through the app clock', async () => {
    const other = await createContentTestSite({ env: { CMS_SCHEDULER: '1' }, slug: 'sched' });
    try {
      const otherApp = other.platform.app;
      const now = new Date('2026-05-01T12:00:00.000Z');
      otherApp.releases.now = () => now;
      expect(otherApp.releases.scheduler).not.toBeNull();
      await other.request({ method: 'POST', url: '/api/releases', payload: { name: 'r' } });
      await other.request({
        method: 'POST',
        url: '/api/releases/release:r/transition',
        payload: { state: 'pending' },
      });
      await other.request({
        method: 'POST',
        url: '/api/releases/release:r/transition',
        payload: { state: 'approved' },
      });
      const created = await other.request({
        method: 'POST',
        url: '/api/releases/release:r/deploy',
        payload: { environmentId: 'env:prod', validFrom: '2026-05-01T12:05:00.000Z' },
      });
      expect(created.json().status).toBe('pending');
      otherApp.releases.now = () => new Date('2026-05-01T12:06:00.000Z');
      const result = await otherApp.releases.scheduler?.tick();
      const list = (await other.request({ method: 'GET', url: '/api/releases/deployments' })).json();
      // The interval may have fired it first; either way it is deployed exactly once.
      expect(list[0].status).toBe('deployed');
      expect(result?.fired.length ?? 0).toBeLessThanOrEqual(1);
      const fires = (await other.graph.auditRecords()).filter(
        (record) => record.action === 'deployment.live',
      );
      expect(fires).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('integrity: the versions a release pins outlive the item', () => {
  const versionOf = (id: string, version: number) => get(`/api/content/post/${id}/versions/${version}`);

  it('deleting an included item tombstones it: gone from reads, but the release deploys and replays', async () => {
    const a = await item('A');
    const patched = await site.request({
      method: 'PATCH',
      url: `/api/content/post/${a.versionableId}`,
      payload: { title: 'A2' },
    });
    expect(patched.json().version).toBe(2);
    await approvedRelease('r', [a]);

    const deleted = await site.request({ method: 'DELETE', url: `/api/content/post/${a.versionableId}` });
    expect(deleted.statusCode, deleted.body).toBe(204);
    // The item is gone: it reads 404, leaves lists and the snapshot a build reads.
    expect((await get(`/api/content/post/${a.versionableId}`)).statusCode).toBe(404);
    expect((await get(`/api/content/post/${a.versionableId}/versions`)).statusCode).toBe(404);
    expect((await get('/api/content/post')).json()).toEqual([]);
    expect((await get('/api/export')).body).not.toContain(a.versionableId);
    // The pinned version is kept; the unpinned one is removed.
    const kept = await versionOf(a.versionableId, 1);
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ itemId: a.versionableId, version: 1, hash: a.hash });
    expect((await versionOf(a.versionableId, 2)).statusCode).toBe(404);
    const audit = (await site.graph.auditRecords()).find((record) => record.action === 'content.delete');
    expect(audit?.data).toMatchObject({ version: 2, keptVersions: [1], releaseIds: ['release:r'] });

    // Deleting is not a new version: the review stays fresh and the release deploys.
    const deployed = await deploy('r', { environmentId: 'env:prod' });
    expect(deployed.statusCode, deployed.body).toBe(201);
    expect(deployed.json().status).toBe('deployed');
    const replayed = await get('/api/releases/replay?envId=env:prod');
    expect(replayed.statusCode, replayed.body).toBe(200);
    expect(replayed.json().includes).toEqual([expect.objectContaining({ versionableId: a.versionableId })]);
    for (const include of replayed.json().includes as Array<{
      versionableId: string;
      version: number;
      hash: string;
    }>) {
      const version = await versionOf(include.versionableId, include.version);
      expect(version.statusCode).toBe(200);
      expect(version.json().hash).toBe(include.hash);
    }
    // A re-review says the item was deleted, as a warning.
    const rereview = await post('/api/releases/release:r/transition', { state: 'pending' });
    expect(rereview.json().reviews[0]).toMatchObject({ status: 'passed' });
    expect(rereview.json().reviews[0].findings).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('was deleted') }),
    ]);

    // Re-creating the item continues after its last version; the kept one is untouched.
    const again = await post('/api/content/post', { title: 'A' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ id: a.versionableId, version: 3 });
    expect(await nodeCount('ItemTombstone')).toBe(0);
    const history = (await get(`/api/content/post/${a.versionableId}/versions`)).json();
    expect(history.map((version: { version: number }) => version.version)).toEqual([3, 1]);
    expect((await versionOf(a.versionableId, 1)).json().hash).toBe(a.hash);
  });

  // batchSize 1: two batches, so the import writes batches of new items off the main thread
  // (createNodeRunDetached), and the tombstone sends the second batch back to a transaction.
  it.each([
    ['in one batch', 500],
    ['in batches of one', 1],
  ])('an import re-creating a tombstoned item continues its versions too (%s)', async (_, batchSize) => {
    const a = await item('A');
    await post('/api/releases', { name: 'r', includes: [a] });
    await site.request({ method: 'DELETE', url: `/api/content/post/${a.versionableId}` });
    // Two records: a batch probes for tombstones before it looks its ids up.
    const imported = await post('/api/import/json', {
      typeName: 'post',
      records: [{ title: 'Another' }, { title: 'A' }],
      batchSize,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ created: 2, failed: 0 });
    expect((await get(`/api/content/post/${a.versionableId}`)).json().version).toBe(2);
    expect(await nodeCount('ItemTombstone')).toBe(0);
    const history = (await get(`/api/content/post/${a.versionableId}/versions`)).json();
    expect(history.map((version: { version: number }) => version.version)).toEqual([2, 1]);
    expect((await versionOf(a.versionableId, 1)).json().hash).toBe(a.hash);
  });

  it('deleting an item no release refers to still removes it and its history entirely', async () => {
    const b = await item('B');
    await site.request({
      method: 'PATCH',
      url: `/api/content/post/${b.versionableId}`,
      payload: { title: 'B2' },
    });
    const deleted = await site.request({ method: 'DELETE', url: `/api/content/post/${b.versionableId}` });
    expect(deleted.statusCode).toBe(204);
    const versions = await site.graph.findNodes({
      label: 'ItemVersion',
      where: [{ prop: 'itemId', op: 'eq', value: b.versionableId }],
    });
    expect(versions.total).toBe(0);
    expect(await nodeCount('ItemTombstone')).toBe(0);
    expect((await versionOf(b.versionableId, 1)).statusCode).toBe(404);
    expect((await post('/api/content/post', { title: 'B' })).json().version).toBe(1);
  });
});
