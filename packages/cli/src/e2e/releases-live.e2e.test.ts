import type { Deployment } from '@trelliscms/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, startServer } from './harness';
import {
  approvedRelease,
  type Client,
  clientOf,
  createPostSite,
  logLines,
  logTrouble,
  type PageRead,
  pageTitle,
  pageUrl,
  RELEASE_SERVER_ENV,
  readPage,
  type Site,
  waitFor,
} from './release-site';

/** The site of this file: `/sites/live/<env>/posts/<slug>/`. */
const SLUG = 'live';
/** How often a page is read while waiting for a switch. */
const POLL_MS = 50;
/** The goal of releases that publish: a switch (rollback, scheduled deployment) is served within 1 s. */
const SWITCH_GOAL_MS = 1000;

/**
 * Releases that publish, end to end: the built server as a child process (scheduler on),
 * driven through the built SDK, its pages read over HTTP from `/sites/<slug>/prod/`. Steps run
 * in order on one site and share state: a deploy serves the release's pinned versions, a
 * rollback switches back without rendering, a future deployment and a drip go live in their
 * slots, and replay and an `asOf` preview show the past and the future.
 */
describe('releases that publish, served over HTTP', { timeout: 240_000 }, () => {
  let server: ServerProcess;
  let client: Client;
  let site: Site;
  const deployed: Record<string, Deployment> = {};

  const page = (slug: string) => pageUrl(server.url, SLUG, 'prod', slug);

  /** Reads `urls` every POLL_MS (each round in parallel) until `done` says so; every read is kept. */
  async function pollPages(
    urls: string[],
    done: (reads: PageRead[][]) => boolean,
    timeoutMs: number,
  ): Promise<PageRead[][]> {
    const reads: PageRead[][] = urls.map(() => []);
    try {
      await waitFor(
        `pages ${urls.join(', ')}`,
        async () => {
          const round = await Promise.all(urls.map((url) => readPage(url)));
          for (const [index, read] of round.entries()) reads[index]!.push(read);
          return done(reads);
        },
        { timeoutMs, intervalMs: POLL_MS },
      );
    } catch (error) {
      const last = reads.map((mine, index) => `${urls[index]}: ${JSON.stringify(mine.at(-1))}`);
      throw new Error(`${(error as Error).message}; the last reads:\n${last.join('\n')}`);
    }
    return reads;
  }

  beforeAll(async () => {
    assertBuilt();
    server = await startServer(RELEASE_SERVER_ENV);
    client = await clientOf(server.url, server.ownerKey);
    site = await createPostSite(client, SLUG);
  }, 90_000);

  afterEach((context) => {
    if (context.task.result?.state === 'fail' && server) {
      console.log(`server log:\n${logTrouble(server.log())}`);
    }
  });

  afterAll(async () => {
    if (server) {
      for (const line of logLines(server.log(), 'deployment live')) {
        console.log(
          `server: ${line.deploymentId} live (release ${line.releaseId}, prebuilt ${line.prebuilt}, lateness ${line.latenessMs} ms, took ${line.tookMs} ms)`,
        );
      }
      await server.stop();
    }
  });

  it('serves a deployed release’s pinned versions until a newer release, and rolls back with one pointer switch', async () => {
    await site.content.create('post', { slug: 'hello', title: 'Hello v1' });
    const r1 = await approvedRelease(site, 'r1', ['post:hello']);
    const d1 = await site.releases.deploy(r1, { environmentId: 'env:prod' });
    expect(d1).toMatchObject({ status: 'deployed', releaseId: r1, buildId: expect.any(String) });
    deployed.d1 = d1;
    expect(await pageTitle(page('hello'))).toBe('Hello v1');

    // An edit and a build of prod change nothing there: prod renders the version live there.
    await site.content.update('post', 'post:hello', { title: 'Hello v2' });
    const build = await site.build.run({ env: 'prod' });
    expect(build.ok).toBe(true);
    expect(await pageTitle(page('hello'))).toBe('Hello v1');

    const r2 = await approvedRelease(site, 'r2', ['post:hello']);
    const d2 = await site.releases.deploy(r2, { environmentId: 'env:prod' });
    expect(d2).toMatchObject({ status: 'deployed', releaseId: r2, buildId: expect.any(String) });
    expect(d2.buildId).not.toBe(d1.buildId);
    deployed.d2 = d2;
    expect(await pageTitle(page('hello'))).toBe('Hello v2');

    const before = await site.build.history({ env: 'prod', limit: 500 });
    const started = Date.now();
    const back = await site.releases.rollbackDeployment(d2.id, r1);
    const answeredMs = Date.now() - started;
    const served = await waitFor(
      'the page of the rolled-back release',
      async () => ((await pageTitle(page('hello'))) === 'Hello v1' ? Date.now() : null),
      { timeoutMs: 10_000, intervalMs: 10 },
    );
    const tookMs = served - started;
    console.log(`rollback: answered in ${answeredMs} ms, old page served ${tookMs} ms after the request`);
    expect(tookMs).toBeLessThan(SWITCH_GOAL_MS);
    expect(back).toMatchObject({ status: 'deployed', releaseId: r1, rollbackOf: d2.id });
    // No render: the older deployment's build is switched back in, and no build is recorded.
    expect(back.buildId).toBe(d1.buildId);
    const after = await site.build.history({ env: 'prod', limit: 500 });
    expect(after.length).toBe(before.length);
    expect(after.find((entry) => entry.live)?.buildId).toBe(d1.buildId);
    expect((await site.releases.getDeployment(d2.id)).status).toBe('superseded');
    deployed.rollback = back;
  });

  it('serves a future deployment from its validFrom, not before, within 1 s', async () => {
    await site.content.create('post', { slug: 'future', title: 'Future' });
    const release = await approvedRelease(site, 'future', ['post:future']);
    const pending = await site.releases.deploy(release, {
      environmentId: 'env:prod',
      validFrom: new Date(Date.now() + 4000).toISOString(),
    });
    expect(pending.status).toBe('pending');
    const validFrom = Date.parse(pending.validFrom);
    const [reads] = await pollPages([page('future')], ([mine]) => mine!.at(-1)!.title === 'Future', 30_000);
    const seen = reads!.find((read) => read.title === 'Future')!;
    const beforeValidFrom = reads!.filter((read) => read.receivedAt < validFrom);
    // It was read (and not served) for most of the 4 s before validFrom.
    expect(beforeValidFrom.length).toBeGreaterThan(10);
    expect(beforeValidFrom.filter((read) => read.title === 'Future')).toEqual([]);
    const latenessMs = seen.receivedAt - validFrom;
    console.log(
      `future deployment: served ${latenessMs} ms after validFrom (${beforeValidFrom.length} reads before it, none served it)`,
    );
    expect(latenessMs).toBeGreaterThanOrEqual(0);
    expect(latenessMs).toBeLessThan(SWITCH_GOAL_MS);
    const final = await site.releases.getDeployment(pending.id);
    expect(final).toMatchObject({ status: 'deployed', prebuiltBuildId: expect.any(String) });
    // Built ahead: at validFrom the switch was one pointer write to the build made before.
    expect(final.buildId).toBe(final.prebuiltBuildId);
    expect(Date.parse(final.deployedAt!)).toBeGreaterThanOrEqual(validFrom);
  });

  it('takes a drip of releases live each in its slot, in order', async () => {
    const slugs = ['drip-1', 'drip-2', 'drip-3', 'drip-4'];
    const releaseIds: string[] = [];
    for (const [index, slug] of slugs.entries()) {
      await site.content.create('post', { slug, title: `Drip ${index + 1}` });
      releaseIds.push(await approvedRelease(site, slug, [`post:${slug}`]));
    }
    const windowStart = Date.now() + 5000;
    const spacingMs = 2000;
    const scheduled = await site.releases.dripSchedule({
      environmentId: 'env:prod',
      releaseIds,
      windowStart: new Date(windowStart).toISOString(),
      windowEnd: new Date(windowStart + spacingMs * (slugs.length - 1)).toISOString(),
      pattern: 'even',
    });
    expect(scheduled.deployments.map((deployment) => deployment.releaseId)).toEqual(releaseIds);
    const slots = scheduled.deployments.map((deployment) => Date.parse(deployment.validFrom));
    const urls = slugs.map((slug) => page(slug));
    const isShown = (read: PageRead, index: number) => read.title === `Drip ${index + 1}`;
    const reads = await pollPages(
      urls,
      (all) => all.every((mine, index) => mine.some((read) => isShown(read, index))),
      slots.at(-1)! - Date.now() + 30_000,
    );
    const appeared = reads.map((mine, index) => mine.find((read) => isShown(read, index))!);
    const lateness = appeared.map((read, index) => read.receivedAt - slots[index]!);
    console.log(
      `drip: slots ${slots.map((slot) => new Date(slot).toISOString()).join(', ')}; each page served ${lateness.join(', ')} ms after its slot`,
    );
    for (const [index, mine] of reads.entries()) {
      // Not before its slot...
      const early = mine.filter((read) => read.receivedAt < slots[index]! && isShown(read, index));
      expect(early, `drip ${index + 1} served before its slot`).toEqual([]);
      expect(lateness[index]).toBeGreaterThanOrEqual(0);
      // ...and before the next one's (the last: within one spacing).
      const next = slots[index + 1] ?? slots[index]! + spacingMs;
      expect(appeared[index]!.receivedAt, `drip ${index + 1} after the next slot`).toBeLessThan(next);
    }
    const order = appeared
      .map((read, index) => ({ index, at: read.receivedAt }))
      .sort((a, b) => a.at - b.at)
      .map((entry) => entry.index);
    expect(order).toEqual([0, 1, 2, 3]);
    for (const [index, deployment] of scheduled.deployments.entries()) {
      const final = await site.releases.getDeployment(deployment.id);
      expect(final.status).toBe('deployed');
      // Each switched in the build made ahead for it (the ones before it going live made it no stale).
      expect(final.buildId, `drip ${index + 1} switched in its build made ahead`).toBe(final.prebuiltBuildId);
    }
  });

  it('replays the past and the future, and previews the future while prod serves the present', async () => {
    const d1 = deployed.d1!;
    const d2 = deployed.d2!;
    const past = await site.releases.replay({ envId: 'env:prod', atTime: d1.deployedAt! });
    expect(past).toMatchObject({ future: false, deployment: { id: d1.id }, release: { id: d1.releaseId } });
    expect(past.live).toEqual([
      expect.objectContaining({ itemId: 'post:hello', version: 1, deploymentId: d1.id }),
    ]);
    const second = await site.releases.replay({ envId: 'env:prod', atTime: d2.deployedAt! });
    expect(second.deployment?.id).toBe(d2.id);
    expect(second.live?.find((entry) => entry.itemId === 'post:hello')?.version).toBe(2);

    const head = await site.content.update('post', 'post:hello', { title: 'Hello v3' });
    const release = await approvedRelease(site, 'r3', ['post:hello']);
    const pending = await site.releases.deploy(release, {
      environmentId: 'env:prod',
      validFrom: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(pending.status).toBe('pending');
    const atTime = new Date(Date.now() + 7_200_000).toISOString();
    const future = await site.releases.replay({ envId: 'env:prod', atTime });
    expect(future).toMatchObject({
      future: true,
      deployment: { id: pending.id, status: 'pending' },
      release: { id: release },
    });
    expect(future.live?.find((entry) => entry.itemId === 'post:hello')).toMatchObject({
      version: head.version,
      deploymentId: pending.id,
      releaseId: release,
    });
    // What is live now stays live then (the future and drip posts).
    expect(future.live?.map((entry) => entry.itemId)).toEqual(
      expect.arrayContaining(['post:future', 'post:drip-1', 'post:drip-4']),
    );
    const now = await site.releases.replay({ envId: 'env:prod' });
    expect(now.future).toBe(false);
    expect(now.live?.find((entry) => entry.itemId === 'post:hello')?.version).toBe(1);

    const preview = await site.build.run({ env: 'prod', asOf: atTime });
    expect(preview.ok).toBe(true);
    expect(preview.previewUrl).toMatch(new RegExp(`^/previews/${SLUG}/[^/]+/$`));
    expect(await pageTitle(`${server.url}${preview.previewUrl}posts/hello/`)).toBe('Hello v3');
    expect(await pageTitle(`${server.url}${preview.previewUrl}posts/drip-2/`)).toBe('Drip 2');
    expect(await pageTitle(page('hello'))).toBe('Hello v1');
  });
});
