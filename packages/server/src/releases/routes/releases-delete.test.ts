import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

let site: ContentTestSite;
let clock: Date;

beforeEach(async () => {
  site = await createContentTestSite();
  clock = new Date('2026-05-01T12:00:00.000Z');
  site.platform.app.releases.now = () => clock;
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

const post = (url: string, payload: unknown) =>
  site.request({ method: 'POST', url, payload: payload as Record<string, unknown> });
const del = (url: string) => site.request({ method: 'DELETE', url });
const auditLength = async () => (await site.graph.auditRecords()).length;

/** Creates a post and answers its include (its current version with its hash). */
async function item(title: string) {
  const created = await post('/api/content/post', { title });
  expect(created.statusCode, created.body).toBe(201);
  const record = created.json() as { id: string; version: number; hash: string };
  return { kind: 'content', versionableId: record.id, version: record.version, hash: record.hash };
}

async function transition(name: string, state: string) {
  const moved = await post(`/api/releases/release:${name}/transition`, { state });
  expect(moved.statusCode, moved.body).toBe(200);
}

async function createRelease(name: string, body: Record<string, unknown> = {}) {
  const created = await post('/api/releases', { name, ...body });
  expect(created.statusCode, created.body).toBe(201);
}

describe('DELETE /api/releases/{id}', () => {
  it('deletes a draft: 204 with no body, then 404, audited', async () => {
    await createRelease('spring', { includes: [await item('One')] });
    const deleted = await del('/api/releases/release:spring');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await site.request({ method: 'GET', url: '/api/releases/release:spring' })).statusCode).toBe(404);
    expect((await site.graph.auditRecords()).at(-1)).toMatchObject({
      action: 'release.delete',
      target: 'release:spring',
      data: { includes: 1 },
    });
    expect((await del('/api/releases/release:spring')).statusCode).toBe(404);
  });

  it('refuses a pending, approved or deployed release with 409 explaining, and writes nothing', async () => {
    await createRelease('r', { includes: [await item('One')] });
    await transition('r', 'pending');
    const before = await auditLength();
    const pending = await del('/api/releases/release:r');
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toMatchObject({ code: 'conflict' });
    expect(pending.json().error).toContain('is pending; only a draft release can be deleted');
    await transition('r', 'approved');
    const approved = await del('/api/releases/release:r');
    expect(approved.statusCode).toBe(409);
    expect(approved.json().error).toContain('move it back to pending, then to draft');
    const deployed = await post('/api/releases/release:r/deploy', { environmentId: 'env:prod' });
    expect(deployed.statusCode, deployed.body).toBe(201);
    const before2 = await auditLength();
    const refused = await del('/api/releases/release:r');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toContain('is deployed');
    expect(await auditLength()).toBe(before2);
    expect(before2).toBeGreaterThan(before);
  });

  it('refuses a draft that was deployed once (naming its deployments) or that releases derive from', async () => {
    await createRelease('r', { includes: [await item('One')] });
    await transition('r', 'pending');
    await transition('r', 'approved');
    const deployment = (await post('/api/releases/release:r/deploy', { environmentId: 'env:prod' })).json();
    await transition('r', 'pending');
    await transition('r', 'draft');
    await createRelease('fix', { derivedFromReleaseId: 'release:r' });
    const before = await auditLength();
    const refused = await del('/api/releases/release:r');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'in_use', holderCount: 2 });
    expect(refused.json().holders).toEqual([
      { kind: 'deployment', id: deployment.id, detail: 'deployed in env:prod', cascades: false },
      { kind: 'release', id: 'release:fix', detail: 'derived from release:r', cascades: false },
    ]);
    expect(await auditLength()).toBe(before);
  });

  it('removes the versions of a deleted item that only this release kept', async () => {
    const include = await item('Gone');
    await createRelease('keeper', { includes: [include] });
    const id = include.versionableId;
    expect(
      (await site.request({ method: 'PATCH', url: `/api/content/post/${id}`, payload: { title: 'Gone 2' } }))
        .statusCode,
    ).toBe(200);
    expect((await del(`/api/content/post/${id}`)).statusCode).toBe(204);
    expect(await site.graph.getNode(`${id}@1`)).not.toBeNull();
    expect(await site.graph.getNode(`${id}@tombstone`)).not.toBeNull();
    expect((await del('/api/releases/release:keeper')).statusCode).toBe(204);
    expect(await site.graph.getNode(`${id}@1`)).toBeNull();
    expect(await site.graph.getNode(`${id}@tombstone`)).toBeNull();
    expect((await site.graph.auditRecords()).at(-1)?.data).toMatchObject({ freedVersions: [`${id}@1`] });
  });
});

describe('DELETE /api/releases/environments/{id}', () => {
  const putEnv = async (id: string) => {
    const put = await site.request({
      method: 'PUT',
      url: `/api/releases/environments/${id}`,
      payload: { order: 1, autoBuild: false, requiresApproval: false },
    });
    expect(put.statusCode, put.body).toBe(200);
  };
  const envIds = async () =>
    (await site.request({ method: 'GET', url: '/api/releases/environments' }))
      .json()
      .map((env: { id: string }) => env.id);

  it('refuses dev and prod (409: they always exist) and answers 404 for an unknown one', async () => {
    for (const id of ['env:dev', 'env:prod']) {
      const refused = await del(`/api/releases/environments/${id}`);
      expect(refused.statusCode, id).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'conflict' });
      expect(refused.json().error).toContain('always exists');
    }
    expect((await del('/api/releases/environments/env:nowhere')).statusCode).toBe(404);
    expect(await envIds()).toEqual(['env:dev', 'env:prod']);
  });

  it('refuses an environment items are live in, naming them; deletes it once they are taken down', async () => {
    await putEnv('env:staging');
    const one = await item('One');
    const published = await post(`/api/content/post/${one.versionableId}/publish?env=staging`, {});
    expect(published.statusCode, published.body).toBe(200);
    const before = await auditLength();
    const refused = await del('/api/releases/environments/env:staging');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'in_use', holderCount: 1 });
    expect(refused.json().holders).toEqual([
      { kind: 'item', id: one.versionableId, detail: 'live at version 1', cascades: false },
    ]);
    expect(refused.json().error).toBe(
      `Environment \`env:staging\` cannot be deleted; it is still used by item ${one.versionableId}.`,
    );
    expect(await auditLength()).toBe(before);
    expect(await envIds()).toContain('env:staging');
    expect((await post(`/api/content/post/${one.versionableId}/unpublish?env=staging`, {})).statusCode).toBe(
      200,
    );
    const deleted = await del('/api/releases/environments/env:staging');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(await envIds()).toEqual(['env:dev', 'env:prod']);
    expect((await site.graph.auditRecords()).at(-1)).toMatchObject({
      action: 'environment.delete',
      target: 'env:staging',
    });
    const publishAgain = await post(`/api/content/post/${one.versionableId}/publish?env=staging`, {});
    expect(publishAgain.statusCode).toBe(400);
    expect(publishAgain.json().code).toBe('unknown_environment');
  });

  it('refuses an environment a pending deployment targets, naming it', async () => {
    await putEnv('env:staging');
    await createRelease('later', { includes: [await item('One')] });
    await transition('later', 'pending');
    await transition('later', 'approved');
    const pending = await post('/api/releases/release:later/deploy', {
      environmentId: 'env:staging',
      validFrom: '2026-06-01T00:00:00.000Z',
    });
    expect(pending.json().status).toBe('pending');
    const refused = await del('/api/releases/environments/env:staging');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().holders).toEqual([
      {
        kind: 'deployment',
        id: pending.json().id,
        detail: 'pending: release:later goes live at 2026-06-01T00:00:00.000Z',
        cascades: false,
      },
    ]);
  });

  it('needs an admin of the site', async () => {
    await putEnv('env:staging');
    const editor = await site.platform.addUser({ name: 'e', siteId: site.siteId, role: 'editor' });
    const forbidden = await site.request({
      method: 'DELETE',
      url: '/api/releases/environments/env:staging',
      headers: { authorization: `Bearer ${editor.key}` },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(await envIds()).toContain('env:staging');
  });
});
