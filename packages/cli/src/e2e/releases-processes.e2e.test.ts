import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type ServerProcess, startServer } from './harness';
import {
  approvedRelease,
  auditEntries,
  clientOf,
  createPostSite,
  logLines,
  logTrouble,
  type PageRead,
  pageTitle,
  pageUrl,
  RELEASE_SERVER_ENV,
  readPage,
  waitFor,
} from './release-site';

/** The goal of releases that publish: a scheduled deployment is served within 1 s of its validFrom. */
const SWITCH_GOAL_MS = 1000;
/** The claim lease of the crash test's servers (CMS_DEPLOY_LEASE_MS; the default is 60 s). */
const LEASE_MS = 5000;

/**
 * Releases that publish across server processes: the built server as child processes on one
 * data dir (scheduler on), driven through the built SDK, pages read over HTTP. A scheduled
 * deployment survives a restart, two servers take each deployment live once, and a server
 * killed while building a deployment leaves the old site served and the deployment to be
 * taken live once its claim has expired.
 */
describe('releases that publish across server processes', { timeout: 300_000 }, () => {
  let dataDir: string | null = null;
  const servers: ServerProcess[] = [];

  /** Starts a server on this test's data dir (made on the first start). */
  async function start(env: Record<string, string> = {}): Promise<ServerProcess> {
    dataDir ??= await mkdtemp(join(tmpdir(), 'trellis-releases-'));
    const server = await startServer(
      { ...RELEASE_SERVER_ENV, ...env },
      { dataDir, ownerKey: servers[0]?.ownerKey },
    );
    servers.push(server);
    return server;
  }

  function logSwitches(): void {
    for (const [index, server] of servers.entries()) {
      for (const line of logLines(server.log(), 'deployment live')) {
        console.log(
          `server ${index + 1} (pid ${server.pid}): ${line.deploymentId} live (prebuilt ${line.prebuilt}, lateness ${line.latenessMs} ms, took ${line.tookMs} ms)`,
        );
      }
    }
  }

  beforeAll(() => assertBuilt());

  afterEach(async (context) => {
    logSwitches();
    if (context.task.result?.state === 'fail') {
      for (const [index, server] of servers.entries()) {
        console.log(`server ${index + 1} (pid ${server.pid}) log:\n${logTrouble(server.log())}`);
      }
    }
    for (const server of servers.splice(0)) await server.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    dataDir = null;
  });

  it('takes a deployment scheduled before a restart live on time after it', async () => {
    const first = await start();
    const site = await createPostSite(await clientOf(first.url, first.ownerKey), 'restart');
    await site.content.create('post', { slug: 'later', title: 'Later' });
    const release = await approvedRelease(site, 'later', ['post:later']);
    const pending = await site.releases.deploy(release, {
      environmentId: 'env:prod',
      validFrom: new Date(Date.now() + 6000).toISOString(),
    });
    expect(pending.status).toBe('pending');
    const validFrom = Date.parse(pending.validFrom);
    const stopping = Date.now();
    await first.stop();
    const second = await start();
    const upAt = Date.now();
    console.log(
      `restart: stopped in ${upAt - stopping} ms including the new start; up ${validFrom - upAt} ms before validFrom`,
    );
    const url = pageUrl(second.url, 'restart', 'prod', 'later');
    const reads: PageRead[] = [];
    const seen = await waitFor(
      'the page of the deployment scheduled before the restart',
      async () => {
        const read = await readPage(url);
        reads.push(read);
        return read.title === 'Later' ? read : null;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    expect(reads.filter((read) => read.receivedAt < validFrom && read.title === 'Later')).toEqual([]);
    const latenessMs = seen.receivedAt - validFrom;
    const sinceDueMs = seen.receivedAt - Math.max(validFrom, upAt);
    console.log(
      `restart: served ${latenessMs} ms after validFrom (${sinceDueMs} ms after it was due on a running server)`,
    );
    // Up before validFrom (the usual case): on time. Up later: the page appearing is what counts.
    if (upAt < validFrom) expect(latenessMs).toBeLessThan(SWITCH_GOAL_MS);
    const client = await clientOf(second.url, second.ownerKey);
    expect(await client.site('site:restart').releases.getDeployment(pending.id)).toMatchObject({
      status: 'deployed',
    });
  });

  it('takes each deployment live exactly once with two servers on one data dir', async () => {
    const a = await start();
    const clientA = await clientOf(a.url, a.ownerKey);
    const siteA = await createPostSite(clientA, 'pair');
    const b = await start();
    const siteB = (await clientOf(b.url, b.ownerKey)).site('site:pair');
    const slugs = ['one', 'two', 'three', 'four'];
    const start0 = Date.now() + 5000;
    const deployments = [];
    for (const [index, slug] of slugs.entries()) {
      // Alternate the servers the requests go to.
      const site = index % 2 === 0 ? siteA : siteB;
      await site.content.create('post', { slug, title: `Pair ${slug}` });
      const release = await approvedRelease(site, slug, [`post:${slug}`]);
      deployments.push(
        await site.releases.deploy(release, {
          environmentId: 'env:prod',
          validFrom: new Date(start0 + index * 1500).toISOString(),
        }),
      );
    }
    expect(deployments.map((deployment) => deployment.status)).toEqual(slugs.map(() => 'pending'));
    // Both servers' pages, every 50 ms: how many of the posts each serves may only grow.
    const shown: Array<{ server: number; at: number; count: number }> = [];
    await waitFor(
      'every post served by both servers',
      async () => {
        const round = await Promise.all(
          [a, b].flatMap((server, index) =>
            slugs.map(async (slug) => ({
              server: index,
              shown: (await readPage(pageUrl(server.url, 'pair', 'prod', slug))).title === `Pair ${slug}`,
            })),
          ),
        );
        const at = Date.now();
        for (const server of [0, 1]) {
          const count = round.filter((read) => read.server === server && read.shown).length;
          shown.push({ server, at, count });
        }
        return round.every((read) => read.shown);
      },
      { timeoutMs: start0 + slugs.length * 1500 - Date.now() + 30_000, intervalMs: 50 },
    );
    for (const server of [0, 1]) {
      const counts = shown.filter((entry) => entry.server === server).map((entry) => entry.count);
      const drops = counts.filter((count, index) => index > 0 && count < counts[index - 1]!);
      expect(drops, `server ${server + 1} served an older site after a newer one`).toEqual([]);
    }
    const graphName = (await clientA.sites.get('site:pair')).graphName;
    const live = auditEntries(a.dataDir, graphName, 'deployment.live');
    console.log(
      `two servers: deployment.live audit records ${live.map((entry) => `${entry.target}@${entry.ts}`).join(', ')}`,
    );
    for (const deployment of deployments) {
      expect(live.filter((entry) => entry.target === deployment.id)).toHaveLength(1);
    }
    expect(live).toHaveLength(deployments.length);
    const switches = [a, b].flatMap((server) => logLines(server.log(), 'deployment live'));
    expect(switches.map((line) => line.deploymentId).sort()).toEqual(deployments.map((d) => d.id).sort());
    const reconciled = [a, b].flatMap((server) =>
      logLines(server.log(), 'pointer switched to the build the graph records as live'),
    );
    console.log(`two servers: ${reconciled.length} pointer switches put right by reconcile`);
    const finals = await Promise.all(
      deployments.map((deployment) => siteA.releases.getDeployment(deployment.id)),
    );
    expect(finals.map((deployment) => deployment.status)).toEqual(slugs.map(() => 'deployed'));
    // Both serve the build of the last deployment.
    const lastBuild = finals.at(-1)!.buildId;
    expect((await siteA.build.last({ env: 'prod' })).buildId).toBe(lastBuild);
    expect((await siteB.build.last({ env: 'prod' })).buildId).toBe(lastBuild);
    expect((await siteA.audit.verify()).status).toBe('ok');
  });

  it('keeps the old site served when a server is killed while building a deployment, which goes live once its claim expires', async () => {
    const env = { CMS_DEPLOY_LEASE_MS: String(LEASE_MS), CMS_BUILD_LEASE_MS: String(LEASE_MS) };
    const first = await start(env);
    const site = await createPostSite(await clientOf(first.url, first.ownerKey), 'crash');
    await site.content.create('post', { slug: 'crash', title: 'Before' });
    const before = await site.releases.deploy(await approvedRelease(site, 'before', ['post:crash']), {
      environmentId: 'env:prod',
    });
    expect(before.status).toBe('deployed');
    // Thousands of posts live in prod but not yet built: the next deployment's build renders them all.
    const records = Array.from({ length: 4000 }, (_, index) => ({
      slug: `bulk-${index}`,
      title: `Bulk ${index}`,
    }));
    const imported = await site.import.json({ typeName: 'post', records, publish: 'prod' });
    expect(imported).toMatchObject({
      created: records.length,
      failed: 0,
      published: { count: records.length },
    });
    await site.content.update('post', 'post:crash', { title: 'After' });
    const release = await approvedRelease(site, 'after', ['post:crash']);
    const requestedAt = Date.now();
    const pending = await site.releases.deploy(release, { environmentId: 'env:prod', async: true });
    expect(pending.status).toBe('pending');
    const building = await waitFor(
      'the deployment’s build to start',
      async () =>
        (await site.build.history({ env: 'prod', limit: 5 })).find(
          (build) => build.deploymentId === pending.id && build.status === 'running',
        ),
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    expect((await site.releases.getDeployment(pending.id)).status).toBe('pending');
    await first.kill('SIGKILL');
    const killedAt = Date.now();
    console.log(
      `kill -9: ${killedAt - requestedAt} ms after the deploy request, build ${building.buildId} running`,
    );

    const second = await start(env);
    const restartedAt = Date.now();
    const restarted = (await clientOf(second.url, second.ownerKey)).site('site:crash');
    const url = pageUrl(second.url, 'crash', 'prod', 'crash');
    // The old site right after the restart, and the deployment still pending (its claim holds).
    expect(await pageTitle(url)).toBe('Before');
    expect((await restarted.releases.getDeployment(pending.id)).status).toBe('pending');
    // The killed server's build is marked interrupted once its `aliveUntil` (renewed while a
    // server has it in flight, CMS_BUILD_LEASE_MS) has passed: it could be another live server's.
    const interrupted = await waitFor(
      'the killed build marked interrupted',
      async () => {
        const status = await restarted.build.status(building.buildId);
        return status.status === 'running' ? undefined : status;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(interrupted).toMatchObject({ status: 'error', error: expect.stringMatching(/interrupted/) });

    const reads: PageRead[] = [];
    await waitFor(
      'the new page',
      async () => {
        const read = await readPage(url);
        reads.push(read);
        return read.title === 'After';
      },
      { timeoutMs: 180_000, intervalMs: 100 },
    );
    const final = await restarted.releases.getDeployment(pending.id);
    expect(final).toMatchObject({ status: 'deployed', buildId: expect.any(String) });
    expect(final.buildId).not.toBe(building.buildId);
    // Not taken over before the claim of the killed server expired.
    expect(Date.parse(final.deployedAt!) - requestedAt).toBeGreaterThanOrEqual(LEASE_MS);
    // Until then, every read served the old page.
    expect(reads.slice(0, -1).every((read) => read.title === 'Before')).toBe(true);
    console.log(
      `kill -9: restarted in ${restartedAt - killedAt} ms; deployed ${Date.parse(final.deployedAt!) - killedAt} ms after the kill (lease ${LEASE_MS} ms), the old page served until then`,
    );
    const { graphName } = await (await clientOf(second.url, second.ownerKey)).sites.get('site:crash');
    const live = auditEntries(second.dataDir, graphName, 'deployment.live');
    expect(live.filter((entry) => entry.target === pending.id)).toHaveLength(1);
  });
});
