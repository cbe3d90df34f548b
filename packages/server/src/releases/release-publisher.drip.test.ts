import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { getSite, toSiteView } from '../platform/sites';
import { BUILD_LABEL } from '../publishing/build-service';

let site: ContentTestSite;
let clock: Date;

beforeEach(async () => {
  site = await createContentTestSite({ slug: 'pub' });
  clock = new Date('2026-05-01T12:00:00.000Z');
  site.platform.app.releases.now = () => clock;
  await site.createType({
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'slug',
    routePattern: '/posts/{slug}/',
    fields: [
      { name: 'slug', type: 'string', required: true, unique: true },
      { name: 'title', type: 'string', required: true },
    ],
  });
  const template = await site.request({
    method: 'POST',
    url: '/api/templates',
    payload: { name: 'post', boundType: 'post', content: '<h1>{{ item.title }}</h1>' },
  });
  expect(template.statusCode, template.body).toBe(201);
});
afterEach(async () => {
  await site.close();
});

const post = async (url: string, payload: Record<string, unknown>) => {
  const response = await site.request({ method: 'POST', url, payload });
  expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(300);
  return response.json();
};

/** A new version of post `slug` with `title`, in an approved release `name`. */
async function releaseOf(name: string, slug: string, title: string): Promise<string> {
  const edited = await site.request({
    method: 'PATCH',
    url: `/api/content/post/post:${slug}`,
    payload: { title },
  });
  expect(edited.statusCode, edited.body).toBe(200);
  const { version, hash } = edited.json();
  await post('/api/releases', {
    name,
    includes: [{ kind: 'content', versionableId: `post:${slug}`, version, hash }],
  });
  await post(`/api/releases/release:${name}/transition`, { state: 'pending' });
  await post(`/api/releases/release:${name}/transition`, { state: 'approved' });
  return `release:${name}`;
}

const served = async (slug: string) =>
  (await site.platform.app.inject({ method: 'GET', url: `/sites/pub/prod/posts/${slug}/` })).body;

describe('release publisher: builds made ahead', () => {
  it('switches in the build made ahead for a drip deployment after the ones before it went live (no build at its time)', async () => {
    for (const slug of ['a', 'b']) await post('/api/content/post', { slug, title: `${slug} 1` });
    await post('/api/publish', { env: 'prod', type: 'post' });
    expect((await post('/api/build', { env: 'prod', mode: 'full' })).ok).toBe(true);
    const first = await releaseOf('ra', 'a', 'a 2');
    const second = await releaseOf('rb', 'b', 'b 2');
    const at = (minutes: number) => new Date(clock.getTime() + minutes * 60_000).toISOString();
    const { deployments } = await post('/api/releases/drip-schedule', {
      releaseIds: [first, second],
      windowStart: at(1),
      windowEnd: at(2),
      pattern: 'even',
      environmentId: 'env:prod',
    });
    const [da, db] = deployments as Array<{ id: string }>;

    const { publisher } = site.platform.app.releases;
    const record = await getSite(site.platform.app.trellis.platform, site.siteId);
    const view = toSiteView(record!);
    // Both built ahead while both are pending, as the scheduler does, soonest first.
    for (const deployment of deployments)
      await publisher.prebuild({ site: view, graph: site.graph, deployment });
    const prebuilt = (
      await site.request({ method: 'GET', url: `/api/releases/deployments/${db!.id}` })
    ).json().prebuiltBuildId as string;
    expect(prebuilt).toEqual(expect.any(String));

    clock = new Date(at(1));
    expect(
      (await publisher.deploy({ site: view, graph: site.graph, deploymentId: da!.id })).deployment.status,
    ).toBe('deployed');
    expect(await served('a')).toContain('<h1>a 2</h1>');
    // Putting `a` live stamped its publishedAt, which no build reads: b's build made ahead still holds.
    clock = new Date(at(2));
    const { deployment } = await publisher.deploy({ site: view, graph: site.graph, deploymentId: db!.id });
    expect(deployment).toMatchObject({ status: 'deployed', buildId: prebuilt });
    expect(await served('b')).toContain('<h1>b 2</h1>');
    expect(await served('a')).toContain('<h1>a 2</h1>');
    const builds = await site.graph.findNodes({ label: BUILD_LABEL, limit: 100 });
    expect(builds.nodes.filter((node) => node.props.purpose === 'deployment')).toEqual([]);
  });

  it('still builds at the switch when what the build made ahead stands on changed', async () => {
    await post('/api/content/post', { slug: 'a', title: 'a 1' });
    await post('/api/content/post', { slug: 'c', title: 'c 1' });
    await post('/api/publish', { env: 'prod', type: 'post' });
    expect((await post('/api/build', { env: 'prod', mode: 'full' })).ok).toBe(true);
    const release = await releaseOf('ra', 'a', 'a 2');
    const validFrom = new Date(clock.getTime() + 60_000).toISOString();
    const pending = await post(`/api/releases/${release}/deploy`, { environmentId: 'env:prod', validFrom });
    const { publisher } = site.platform.app.releases;
    const view = toSiteView((await getSite(site.platform.app.trellis.platform, site.siteId))!);
    await publisher.prebuild({ site: view, graph: site.graph, deployment: pending });
    const prebuilt = (
      await site.request({ method: 'GET', url: `/api/releases/deployments/${pending.id}` })
    ).json().prebuiltBuildId as string;
    expect(prebuilt).toEqual(expect.any(String));
    // c's new version goes live meanwhile: the build made ahead shows c 1, so it must not be used.
    await site.request({ method: 'PATCH', url: '/api/content/post/post:c', payload: { title: 'c 2' } });
    await post('/api/content/post/post:c/publish', { env: 'prod' });
    clock = new Date(validFrom);
    const { deployment } = await publisher.deploy({
      site: view,
      graph: site.graph,
      deploymentId: pending.id,
    });
    expect(deployment.status).toBe('deployed');
    expect(deployment.buildId).not.toBe(prebuilt);
    expect(await served('a')).toContain('<h1>a 2</h1>');
    expect(await served('c')).toContain('<h1>c 2</h1>');
  });
});
