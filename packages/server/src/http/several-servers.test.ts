import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { startPeerApp } from '../../test/helpers/test-platform';
import { AccessEpochWatch } from '../auth/access-epoch';
import { createEmbeddedEngine } from '../engines/embedded';
import type { Graph } from '../engines/port';
import { buildLeaseId, readBuildLease, releaseBuildLease, takeBuildLease } from '../publishing/build-lease';
import { BUILD_LABEL, buildNodeId } from '../publishing/build-service';

/** Lease attempts to fail (as a busy engine fails them) before they reach the graph. */
const leaseFaults = vi.hoisted(() => ({ remaining: 0 }));
vi.mock('../publishing/build-lease', async (importOriginal) => {
  const real = await importOriginal<typeof import('../publishing/build-lease')>();
  return {
    ...real,
    takeBuildLease: (...args: Parameters<typeof real.takeBuildLease>) => {
      if (leaseFaults.remaining > 0) {
        leaseFaults.remaining -= 1;
        return Promise.reject(new Error('database is locked'));
      }
      return real.takeBuildLease(...args);
    },
  };
});

/**
 * Several servers on one platform (docs/scaling.md § Several API servers), in one process:
 * server A is a test platform, server B a second app with its own engine on A's data dir.
 * Both keep their caches for a minute (ACCESS_CACHE_MS=60000), so only the access epoch can
 * make B see A's changes on the next request.
 */
const CACHE_FOR_A_MINUTE = { ACCESS_CACHE_MS: '60000' };

let site: ContentTestSite;
let b: FastifyInstance;

beforeEach(async () => {
  site = await createContentTestSite({ env: CACHE_FOR_A_MINUTE });
  const dataDir = site.platform.dataDir;
  b = await startPeerApp({ dataDir, engine: createEmbeddedEngine({ dataDir }), env: CACHE_FOR_A_MINUTE });
});

afterEach(async () => {
  await b?.close();
  await site.close();
});

function onB(key: string, url: string, method: 'GET' | 'POST' = 'GET') {
  return b.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, 'x-site-id': site.siteId },
  });
}

/** The build's record once it no longer says `running` (asked every 100 ms, for up to 150 s). */
async function waitForEnd(graph: Graph, buildId: string): Promise<Record<string, unknown>> {
  const until = Date.now() + 150_000;
  for (;;) {
    const node = await graph.getNode(buildNodeId(buildId));
    if (node && node.props.status !== 'running') return node.props;
    if (Date.now() > until) throw new Error(`build ${buildId} still running: ${JSON.stringify(node?.props)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('two servers on one embedded data directory', () => {
  it('each shows its own instance id on GET /api/health', async () => {
    const a = (await site.platform.app.inject({ method: 'GET', url: '/api/health' })).json();
    const other = (await b.inject({ method: 'GET', url: '/api/health' })).json();
    expect(a.instanceId).toMatch(/^.+:\d+:[0-9a-f]{8}$/);
    expect(other.instanceId).toMatch(/^.+:\d+:[0-9a-f]{8}$/);
    expect(a.instanceId).not.toBe(other.instanceId);
  });

  it('a key revoked on A is refused by B on the next request, though B cached it', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'ci', role: 'editor' },
    });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json();
    // B caches the key and the access it resolved.
    expect((await onB(secret, '/api/types')).statusCode).toBe(200);
    expect((await onB(secret, '/api/types')).statusCode).toBe(200);
    expect((await site.request({ method: 'DELETE', url: `/api/auth/api-keys/${id}` })).statusCode).toBe(200);
    const refused = await onB(secret, '/api/types');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('invalid_credential');
    expect(b.trellis.accessEpoch.stats().changes).toBeGreaterThanOrEqual(1);
  });

  it('B skips the epoch read while nothing is committed to the platform, and still sees A revoke a key', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/auth/api-keys',
      payload: { name: 'ci', role: 'editor' },
    });
    const { id, secret } = created.json();
    expect((await onB(secret, '/api/types')).statusCode).toBe(200);
    const before = b.trellis.accessEpoch.stats();
    for (let i = 0; i < 5; i += 1) expect((await onB(secret, '/api/types')).statusCode).toBe(200);
    const quiet = b.trellis.accessEpoch.stats();
    // The platform's WAL index header did not move: five checks, no read.
    expect(quiet.unchanged - before.unchanged).toBe(5);
    expect(quiet.reads).toBe(before.reads);
    // A's revocation is a commit to the platform file by another connection: B's next check reads.
    expect((await site.request({ method: 'DELETE', url: `/api/auth/api-keys/${id}` })).statusCode).toBe(200);
    const refused = await onB(secret, '/api/types');
    expect(refused.statusCode).toBe(401);
    expect(b.trellis.accessEpoch.stats().reads).toBeGreaterThan(quiet.reads);
    expect(b.trellis.accessEpoch.stats().changes).toBeGreaterThan(quiet.changes);
  });

  it('a role change and a removal on A apply on B on the next request', async () => {
    const user = await site.platform.addUser({ name: 'ada', siteId: site.siteId, role: 'admin' });
    // Admin-only on B, cached.
    expect((await onB(user.key, '/api/auth/users')).statusCode).toBe(200);
    expect((await onB(user.key, '/api/auth/users')).statusCode).toBe(200);
    const demoted = await site.request({
      method: 'PUT',
      url: `/api/auth/users/${user.userId}/role`,
      payload: { role: 'viewer' },
    });
    expect(demoted.statusCode).toBe(200);
    const refused = await onB(user.key, '/api/auth/users');
    expect(refused.statusCode).toBe(403);
    // Still a viewer: reads go on.
    expect((await onB(user.key, '/api/types')).statusCode).toBe(200);
    const removed = await site.request({ method: 'DELETE', url: `/api/auth/users/${user.userId}` });
    expect(removed.statusCode).toBe(200);
    expect((await onB(user.key, '/api/types')).statusCode).toBe(403);
  });

  it('a build of an environment on B waits while A holds its lease, and runs once it is given back', async () => {
    const graph = site.graph;
    const held = await takeBuildLease(graph, {
      queue: 'dev',
      holder: 'server-a',
      buildId: 'b-held',
      nowMs: Date.now(),
      leaseMs: 600_000,
    });
    expect(held.taken).toBe(true);
    const started = await onB(site.platform.ownerKey, '/api/build?env=dev&async=1', 'POST');
    expect(started.statusCode).toBe(202);
    const { buildId } = started.json();
    const status = async () => (await onB(site.platform.ownerKey, `/api/build/status/${buildId}`)).json();
    // It stays queued while the lease is held (asked again every 500 ms).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const waiting = await status();
    expect(waiting.status).toBe('running');
    expect(waiting.progress?.phase).toBe('queued');
    expect((await readBuildLease(graph, 'dev'))?.holder).toBe('server-a');
    await releaseBuildLease(graph, { queue: 'dev', holder: 'server-a' });
    let done = await status();
    // A loaded 2-core machine can take a while to run it: wait up to 150 s, not a fixed count.
    const until = Date.now() + 150_000;
    while (done.status === 'running' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = await status();
    }
    expect(done.status).toBe('ok');
    // Given back after the build (in its own transaction, after the outcome is recorded: while
    // another connection holds the graph's write lock it waits, and the status can be read
    // meanwhile): nobody holds it.
    let after = await graph.getNode(buildLeaseId('dev'));
    while (after?.props.holder != null && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await graph.getNode(buildLeaseId('dev'));
    }
    expect(after?.props.holder).toBeNull();
  }, 200_000);

  it('a build whose lease cannot be asked for a while (the engine busy) asks again and runs', async () => {
    const graph = site.graph;
    await takeBuildLease(graph, {
      queue: 'dev',
      holder: 'server-a',
      buildId: 'b-held',
      nowMs: Date.now(),
      leaseMs: 600_000,
    });
    const started = await onB(site.platform.ownerKey, '/api/build?env=dev&async=1', 'POST');
    expect(started.statusCode).toBe(202);
    const { buildId } = started.json();
    // B's next three lease attempts fail as SQLite does when another process holds the write
    // lock past the busy timeout; then A gives its lease back.
    leaseFaults.remaining = 3;
    await releaseBuildLease(graph, { queue: 'dev', holder: 'server-a' });
    const node = await waitForEnd(graph, buildId);
    expect(leaseFaults.remaining).toBe(0);
    expect(node.status, String(node.error)).toBe('ok');
  }, 200_000);

  it('a background build that fails before it records an outcome is recorded as ended in error', async () => {
    const short = await startPeerApp({
      dataDir: site.platform.dataDir,
      engine: createEmbeddedEngine({ dataDir: site.platform.dataDir }),
      env: { CMS_BUILD_LEASE_MS: '1000' },
    });
    try {
      // Every lease attempt fails: past a lease's time (1 s here) the build gives up.
      leaseFaults.remaining = Number.POSITIVE_INFINITY;
      const started = await short.inject({
        method: 'POST',
        url: '/api/build?env=dev&async=1',
        headers: { authorization: `Bearer ${site.platform.ownerKey}`, 'x-site-id': site.siteId },
      });
      expect(started.statusCode).toBe(202);
      const node = await waitForEnd(site.graph, started.json().buildId);
      expect(node.status).toBe('error');
      expect(String(node.error)).toContain('database is locked');
    } finally {
      leaseFaults.remaining = 0;
      await short.close();
    }
  }, 200_000);

  it('takes over a lease whose holder died (expired), and refuses one that is held', async () => {
    const graph = site.graph;
    const nowMs = Date.now();
    await takeBuildLease(graph, {
      queue: 'prod',
      holder: 'dead',
      buildId: 'b1',
      nowMs: nowMs - 120_000,
      leaseMs: 60_000,
    });
    const refused = await takeBuildLease(graph, {
      queue: 'prod',
      holder: 'live',
      buildId: 'b2',
      nowMs: nowMs - 90_000,
      leaseMs: 60_000,
    });
    expect(refused).toMatchObject({ taken: false, heldBy: { holder: 'dead', buildId: 'b1' } });
    const taken = await takeBuildLease(graph, {
      queue: 'prod',
      holder: 'live',
      buildId: 'b2',
      nowMs,
      leaseMs: 60_000,
    });
    expect(taken).toMatchObject({ taken: true, previous: { holder: 'dead' } });
    // Another server cannot take it while it is live; its holder renews it.
    expect(
      (await takeBuildLease(graph, { queue: 'prod', holder: 'x', buildId: 'b3', nowMs, leaseMs: 60_000 }))
        .taken,
    ).toBe(false);
    expect(
      (await takeBuildLease(graph, { queue: 'prod', holder: 'live', buildId: 'b2', nowMs, leaseMs: 60_000 }))
        .taken,
    ).toBe(true);
  });
});

describe('builds in flight on another server', () => {
  it('a server starting up marks as interrupted only builds whose aliveUntil has passed', async () => {
    const graph = site.graph;
    const running = (buildId: string, aliveUntil?: number) =>
      graph.createNode({
        id: buildNodeId(buildId),
        labels: [BUILD_LABEL],
        props: {
          ok: true,
          buildId,
          envId: 'env:dev',
          status: 'running',
          ...(aliveUntil ? { aliveUntil } : {}),
        },
      });
    await running('b-elsewhere', Date.now() + 600_000);
    await running('b-dead', Date.now() - 1000);
    await running('b-old');
    expect(await b.builds.recoverInterrupted(graph)).toBe(2);
    expect((await graph.getNode(buildNodeId('b-elsewhere')))?.props.status).toBe('running');
    expect((await graph.getNode(buildNodeId('b-dead')))?.props.status).toBe('error');
    expect((await graph.getNode(buildNodeId('b-old')))?.props.status).toBe('error');
  });
});

describe('AccessEpochWatch', () => {
  it('answers each check with a read started after it, shares reads between concurrent checks, and drops caches when the stamp moves', async () => {
    let stamp = 'one';
    const pending: Array<() => void> = [];
    let reads = 0;
    let dropped = 0;
    const watch = new AccessEpochWatch(
      () =>
        new Promise((resolve) => {
          reads += 1;
          const value = stamp;
          pending.push(() => resolve(value));
        }),
      () => {
        dropped += 1;
      },
    );
    const flush = async () => {
      for (let i = 0; i < 5; i += 1) {
        pending.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const first = watch.check();
    await flush();
    await first;
    expect(reads).toBe(1);
    // A read in flight (it starts on the next turn and reads 'one'); the stamp moves; ten requests arrive.
    const inFlight = watch.check();
    for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    stamp = 'two';
    const later = Array.from({ length: 10 }, () => watch.check());
    let settled = false;
    void Promise.all(later).then(() => {
      settled = true;
    });
    pending.shift()?.();
    await inFlight;
    await new Promise((resolve) => setImmediate(resolve));
    // The ten do not trust the read that started before them.
    expect(settled).toBe(false);
    expect(dropped).toBe(0);
    await flush();
    await Promise.all(later);
    expect(reads).toBe(3);
    expect(dropped).toBe(1);
    expect(watch.stats()).toMatchObject({ checks: 12, reads: 3, changes: 1, failures: 0 });
  });

  it('shares one read between the checks made in the same turn of the event loop, started after all of them', async () => {
    let stamp = 'one';
    let reads = 0;
    let dropped = 0;
    const watch = new AccessEpochWatch(
      async () => {
        reads += 1;
        return stamp;
      },
      () => {
        dropped += 1;
      },
    );
    await watch.check();
    // Requests parsed in one turn: the stamp moves between the first check and the last.
    const first = watch.check();
    stamp = 'two';
    const others = Array.from({ length: 5 }, () => watch.check());
    await Promise.all([first, ...others]);
    expect(reads).toBe(2);
    // The shared read started after the move: every one of them saw it.
    expect(dropped).toBe(1);
    expect(watch.stats()).toMatchObject({ checks: 7, reads: 2, changes: 1 });
  });

  it('runs what rides along a check in the turn its read is asked for, once, and not when disabled', async () => {
    const order: string[] = [];
    const watch = new AccessEpochWatch(
      async () => {
        order.push('read');
        return 'one';
      },
      () => {},
    );
    const checks = [watch.check(() => order.push('a')), watch.check(), watch.check(() => order.push('b'))];
    expect(order).toEqual([]);
    let turnEnded = false;
    // The read and both speculations happen in one turn, the read first.
    setImmediate(() => {
      setImmediate(() => {
        turnEnded = true;
      });
    });
    await Promise.all(checks);
    expect(order).toEqual(['read', 'a', 'b']);
    expect(turnEnded).toBe(false);
    await watch.check();
    expect(order).toEqual(['read', 'a', 'b', 'read']);
    const off = new AccessEpochWatch(
      async () => 'one',
      () => {},
      false,
    );
    await off.check(() => order.push('never'));
    expect(order).not.toContain('never');
  });

  it('skips the read while the commit marker stays where it was at the last read, and only then', async () => {
    let stamp = 'one';
    let marker: string | null = 'm1';
    let reads = 0;
    let failNext = false;
    let dropped = 0;
    const watch = new AccessEpochWatch(
      async () => {
        reads += 1;
        if (failNext) {
          failNext = false;
          throw new Error('engine down');
        }
        return stamp;
      },
      () => {
        dropped += 1;
      },
      true,
      () => marker,
    );
    await watch.check();
    expect(reads).toBe(1);
    await watch.check();
    await watch.check();
    expect(reads).toBe(1);
    expect(watch.stats().unchanged).toBe(2);
    // A commit moved the marker (and the stamp): read, and drop the caches.
    marker = 'm2';
    stamp = 'two';
    await watch.check();
    expect([reads, dropped]).toEqual([2, 1]);
    await watch.check();
    expect(reads).toBe(2);
    // Unknown marker: read every time.
    marker = null;
    await watch.check();
    await watch.check();
    expect(reads).toBe(4);
    // A failed read is not trusted later, though the marker is back to a value seen before.
    marker = 'm3';
    failNext = true;
    await watch.check();
    await watch.check();
    expect(reads).toBe(6);
    await watch.check();
    expect(reads).toBe(6);
    // A marker that throws counts as unknown.
    const throwing = new AccessEpochWatch(
      async () => 'one',
      () => {},
      true,
      () => {
        throw new Error('no file');
      },
    );
    await throwing.check();
    await throwing.check();
    expect(throwing.stats()).toMatchObject({ reads: 2, unchanged: 0 });
  });

  it('keeps the caches when the read fails', async () => {
    let dropped = 0;
    const watch = new AccessEpochWatch(
      () => Promise.reject(new Error('engine down')),
      () => {
        dropped += 1;
      },
    );
    await watch.check();
    expect(dropped).toBe(0);
    expect(watch.stats().failures).toBe(1);
  });
});
