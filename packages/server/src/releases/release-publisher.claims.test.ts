import type { Deployment } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { getSite, type SiteView, toSiteView } from '../platform/sites';
import type { BuildService } from '../publishing/build-service';
import { claimDeployment, dueDeployments } from './deployments';
import { ReleasePublisher } from './release-publisher';

let site: ContentTestSite;
let app: FastifyInstance;
let view: SiteView;
let clock: Date;

beforeEach(async () => {
  site = await createContentTestSite({ env: { CMS_DEPLOY_LEASE_MS: '5000' } });
  app = site.platform.app;
  clock = new Date('2026-05-01T12:00:00.000Z');
  app.releases.now = () => clock;
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true, unique: true },
      { name: 'title', type: 'string', required: true },
    ],
    routePattern: '/posts/{slug}/',
  });
  const template = await site.request({
    method: 'POST',
    url: '/api/templates',
    payload: { name: 'post', boundType: 'post', content: '<h1>{{ item.title }}</h1>' },
  });
  expect(template.statusCode, template.body).toBe(201);
  const record = await getSite(app.trellis.platform, site.siteId);
  view = toSiteView(record!);
});
afterEach(async () => {
  await site.close();
});

const post = async (url: string, payload: Record<string, unknown>) => {
  const response = await site.request({ method: 'POST', url, payload });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
};

/** An approved release pinning a new post `slug` at version 1. */
async function releaseOfNewPost(slug: string): Promise<string> {
  const created = await post('/api/content/post', { slug, title: slug.toUpperCase() });
  const include = {
    kind: 'content',
    versionableId: created.id,
    version: created.version,
    hash: created.hash,
  };
  const release = await post('/api/releases', { name: slug, includes: [include] });
  await post(`/api/releases/${release.id}/transition`, { state: 'pending' });
  await post(`/api/releases/${release.id}/transition`, { state: 'approved' });
  return release.id;
}

function publisher(builds: BuildService = app.builds): ReleasePublisher {
  return new ReleasePublisher({ builds, log: app.log, clock: { now: () => clock }, leaseMs: 5000 });
}

describe('builds made ahead', () => {
  it('switches in the build made ahead for every deployment of a drip, though each going live stamps its items', async () => {
    const releaseIds = [
      await releaseOfNewPost('one'),
      await releaseOfNewPost('two'),
      await releaseOfNewPost('three'),
    ];
    const scheduled = await post('/api/releases/drip-schedule', {
      environmentId: 'env:prod',
      releaseIds,
      windowStart: new Date(clock.getTime() + 60_000).toISOString(),
      windowEnd: new Date(clock.getTime() + 180_000).toISOString(),
      pattern: 'even',
    });
    const deployments = scheduled.deployments as Deployment[];
    const releases = publisher();
    // Each built ahead, as the scheduler does: soonest first, while none is live yet.
    for (const deployment of deployments)
      await releases.prebuild({ site: view, graph: site.graph, deployment });
    const prebuilt: string[] = [];
    for (const deployment of deployments) {
      const node = await site.graph.getNode(deployment.id);
      expect(node?.props.prebuiltBuildId).toEqual(expect.any(String));
      prebuilt.push(String(node?.props.prebuiltBuildId));
    }
    for (const [index, deployment] of deployments.entries()) {
      clock = new Date(Date.parse(deployment.validFrom));
      const { deployment: live, handled } = await releases.deploy({
        site: view,
        graph: site.graph,
        deploymentId: deployment.id,
      });
      expect(handled).toBe(true);
      expect(live.status).toBe('deployed');
      // The build made ahead, not a new one (an earlier deployment going live changed nothing it renders).
      expect(live.buildId, `deployment ${index + 1} of the drip`).toBe(prebuilt[index]);
    }
    const deploymentBuilds = await site.graph.findNodes({
      label: 'Build',
      where: [{ prop: 'purpose', op: 'eq', value: 'deployment' }],
    });
    expect(deploymentBuilds.total).toBe(0);
  });
});

describe('claims', () => {
  it('claims a deployment for CMS_DEPLOY_LEASE_MS while it builds', async () => {
    expect(app.releases.publisher.leaseMs).toBe(5000);
    const releaseId = await releaseOfNewPost('claimed');
    const deployment = await post(`/api/releases/${releaseId}/deploy`, {
      environmentId: 'env:prod',
      validFrom: new Date(clock.getTime() + 1000).toISOString(),
    });
    clock = new Date(clock.getTime() + 1000);
    const claims: unknown[] = [];
    const builds = new Proxy(app.builds, {
      get(target, prop, receiver) {
        if (prop === 'runSync') {
          return async (input: Parameters<BuildService['runSync']>[0]) => {
            claims.push((await site.graph.getNode(deployment.id))?.props.claimUntil);
            return target.runSync(input);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { deployment: live } = await publisher(builds).deploy({
      site: view,
      graph: site.graph,
      deploymentId: deployment.id,
    });
    expect(live.status).toBe('deployed');
    expect(claims).toEqual([new Date(clock.getTime() + 5000).toISOString()]);
  });

  it('leaves a deployment claimed by a process that died alone until the lease expires, then takes it live', async () => {
    const releaseId = await releaseOfNewPost('orphan');
    const deployment = await post(`/api/releases/${releaseId}/deploy`, {
      environmentId: 'env:prod',
      validFrom: new Date(clock.getTime() + 1000).toISOString(),
    });
    clock = new Date(clock.getTime() + 1000);
    // A process claimed it and was killed during the build (nothing renews or gives the claim back).
    const releases = publisher();
    expect(
      await claimDeployment({
        graph: site.graph,
        id: deployment.id,
        by: 'dead-process',
        now: clock,
        leaseMs: releases.leaseMs,
      }),
    ).not.toBeNull();
    clock = new Date(clock.getTime() + 4999);
    expect(await dueDeployments(site.graph, { now: clock, limit: 10 })).toEqual([]);
    const held = await releases.deploy({ site: view, graph: site.graph, deploymentId: deployment.id });
    expect(held).toMatchObject({ handled: false, deployment: { status: 'pending' } });
    clock = new Date(clock.getTime() + 2);
    expect((await dueDeployments(site.graph, { now: clock, limit: 10 })).map((d) => d.id)).toEqual([
      deployment.id,
    ]);
    const taken = await releases.deploy({ site: view, graph: site.graph, deploymentId: deployment.id });
    expect(taken).toMatchObject({ handled: true, deployment: { status: 'deployed' } });
  });
});
