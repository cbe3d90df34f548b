import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { BUILD_LABEL, buildNodeId } from '../build-service';

/**
 * A build goes live, then its serve check probes what is served. A status poll made while the
 * check runs must not see the build ended without its check (a client waiting on the build —
 * `cms build`, `site.build.wait` — stopped there and reported no serve check).
 */
let site: ContentTestSite;
let probed: Server;
let port = 0;
const waiting: Array<{ request: IncomingMessage; response: ServerResponse }> = [];
let arrived: (() => void) | null = null;
let firstBuildId = '';

beforeAll(async () => {
  // Stands in for the site's public server: holds each probe until the test answers it.
  probed = createServer((request, response) => {
    waiting.push({ request, response });
    arrived?.();
  });
  await new Promise<void>((resolve) => probed.listen(0, '127.0.0.1', resolve));
  port = (probed.address() as AddressInfo).port;
  site = await createContentTestSite({ slug: 'checked', env: { CMS_OUTBOUND_ALLOW: `127.0.0.1:${port}` } });
  await seedBlog(site);
}, 60_000);

afterAll(async () => {
  await site?.close();
  probed?.closeAllConnections();
  await new Promise((resolve) => probed?.close(resolve));
});

const status = async (buildId: string) =>
  (await site.request({ method: 'GET', url: `/api/build/status/${buildId}` })).json();

describe('a build and its serve check', () => {
  it('stays running until its serve check is recorded, then ends ok with the check', async () => {
    const publicUrl = `http://127.0.0.1:${port}/`;
    const put = await site.request({
      method: 'PUT',
      url: `/api/sites/${site.siteId}`,
      payload: { publicUrl },
    });
    expect(put.statusCode, put.body).toBe(200);
    const probe = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const started = await site.request({
      method: 'POST',
      url: '/api/build?env=prod&async=1',
      payload: { mode: 'full' },
    });
    expect(started.statusCode, started.body).toBe(202);
    const { buildId } = started.json();
    firstBuildId = buildId;
    await probe;

    // The build is switched in (its pages are served) while the check is held.
    const during = await status(buildId);
    expect(during).toMatchObject({ buildId, status: 'running', progress: { phase: 'deploy' } });
    const page = await site.platform.app.inject({ method: 'GET', url: '/sites/checked/prod/' });
    expect(page.statusCode).toBe(200);
    // Nothing is left to cancel: the build is live.
    const cancel = await site.request({ method: 'POST', url: `/api/build/cancel/${buildId}` });
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json()).toMatchObject({ code: 'conflict' });

    const held = waiting.shift()!;
    expect(held.request.url).toBe('/');
    held.response.end('home');
    let ended = await status(buildId);
    while (ended.status === 'running') {
      await delay(25);
      ended = await status(buildId);
    }
    expect(ended).toMatchObject({
      status: 'ok',
      ok: true,
      deploy: { ok: true, serveCheck: { ok: true, status: 200, url: publicUrl } },
    });
    expect(ended.cancelRequested).toBeUndefined();
  }, 120_000);

  it('a server that stopped during the check leaves the build live and ok, its check not made', async () => {
    // The record a server leaves when it stops during the check: outcome and deploy written,
    // still `running`, its heartbeat gone (made from the record of the build above).
    const live = await site.graph.getNode(buildNodeId(firstBuildId));
    const buildId = 'b-stopped-during-check';
    const deploy = { ...(live!.props.deploy as Record<string, unknown>), serveCheck: null };
    await site.graph.transaction(async (tx) => {
      await tx.createNode({
        id: buildNodeId(buildId),
        labels: [BUILD_LABEL],
        props: { ...live!.props, buildId, status: 'running', deploy, aliveUntil: 0 },
      });
    });
    const runningBefore = await site.graph.findNodes({
      label: BUILD_LABEL,
      where: [{ prop: 'status', op: 'eq', value: 'running' }],
      limit: 10,
    });
    expect(runningBefore.nodes.map((node) => node.id)).toContain(buildNodeId(buildId));
    expect(await site.platform.app.builds.recoverInterrupted(site.graph)).toBeGreaterThanOrEqual(1);
    const after = await status(buildId);
    expect(after).toMatchObject({
      status: 'ok',
      ok: true,
      deploy: { ok: false, serveCheck: null },
      warnings: [
        { code: 'serve_check_not_run', message: expect.stringMatching(/^the serve check did not run: /) },
      ],
    });
  }, 60_000);
});
