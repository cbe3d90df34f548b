import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbeddedEngine } from '../../src/engines/embedded';
import { createBlogSite, eventually, type ServerProcess, startServer } from './harness';

/**
 * Graceful shutdown: SIGTERM while import requests are in flight. Every request the server had
 * received gets a whole answer (none is reset), so a client can tell whether its write landed
 * (a 200's batch is stored, another answer's is not); a new request on a kept-alive socket
 * gets 503 with `Connection: close`; the process exits 0.
 */

const IN_FLIGHT = 12;
const BATCH = 300;
let dataDir: string | undefined;

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Outcome {
  status: number | null;
  connection: string | null;
  error: string | null;
}

/** One HTTP request on `agent`; resolves with its status or the error that ended it. */
function send(
  server: ServerProcess,
  agent: Agent,
  options: { method: string; path: string; body?: unknown; site?: string },
): { sent: Promise<void>; outcome: Promise<Outcome> } {
  let markSent: () => void = () => {};
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const outcome = new Promise<Outcome>((resolve) => {
    const url = new URL(options.path, server.url);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        method: options.method,
        agent,
        headers: {
          authorization: `Bearer ${server.ownerKey}`,
          ...(options.site ? { 'x-site-id': options.site } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
        timeout: 60_000,
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? null,
            connection: res.headers.connection ?? null,
            error: null,
          }),
        );
        res.on('error', (error) =>
          resolve({ status: res.statusCode ?? null, connection: null, error: error.message }),
        );
      },
    );
    req.on('error', (error) => resolve({ status: null, connection: null, error: error.message }));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('finish', markSent);
    req.end(body);
  });
  return { sent, outcome };
}

describe('graceful shutdown', () => {
  it('SIGTERM under load: in-flight requests finish, new requests on kept-alive sockets get 503 Connection: close, exit 0', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trellis-shutdown-'));
    // At info the server logs when it starts shutting down (and every request).
    const server = await startServer({ LOG_LEVEL: 'info' }, { dataDir });
    const site = await createBlogSite(server, { slug: 'shutdown' });
    const busy = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const idle = new Agent({ keepAlive: true, maxSockets: 4 });
    // Open the idle sockets (kept alive after these answers).
    const warm = await Promise.all(
      Array.from({ length: 4 }, () => send(server, idle, { method: 'GET', path: '/api/health' }).outcome),
    );
    expect(warm.map((w) => w.status)).toEqual([200, 200, 200, 200]);
    const batches = Array.from({ length: IN_FLIGHT }, (_, b) =>
      send(server, busy, {
        method: 'POST',
        path: '/api/import/json',
        site: site.id,
        body: {
          typeName: 'post',
          batchSize: BATCH,
          records: Array.from({ length: BATCH }, (_, i) => ({
            title: `s-b${b}-i${i}`,
            body: 'x'.repeat(200),
          })),
        },
      }),
    );
    // Every request is on the wire, and the server is working through them (one answered).
    await Promise.all(batches.map((batch) => batch.sent));
    await Promise.race(batches.map((batch) => batch.outcome));
    const exit = server.kill('SIGTERM');
    await eventually('the server to start shutting down', async () =>
      server.log().includes('shutting down') ? true : undefined,
    );
    const late = await Promise.all(
      Array.from({ length: 4 }, () => send(server, idle, { method: 'GET', path: '/api/health' }).outcome),
    );
    const outcomes = await Promise.all(batches.map((batch) => batch.outcome));
    const { code } = await exit;
    busy.destroy();
    idle.destroy();

    // Which batches landed, from the files.
    const engine = createEmbeddedEngine({ dataDir });
    await engine.init();
    const graph = await engine.openGraph(site.graphName);
    const stored = new Map<number, number>();
    for (const node of (await graph!.findNodes({ label: 'Post', limit: IN_FLIGHT * BATCH + 1 })).nodes) {
      const b = Number(/^s-b(\d+)-/.exec(String(node.props.title))?.[1]);
      stored.set(b, (stored.get(b) ?? 0) + 1);
    }
    await engine.close();

    console.info(
      `[graceful shutdown] in flight: ${JSON.stringify(outcomes.map((o) => o.status ?? o.error))}; on kept-alive sockets after SIGTERM: ${JSON.stringify(late.map((o) => `${o.status ?? o.error} ${o.connection ?? ''}`))}; exit ${code}`,
    );
    expect(outcomes.filter((o) => o.error !== null).map((o) => o.error)).toEqual([]);
    outcomes.forEach((outcome, b) => {
      expect(stored.get(b) ?? 0, `batch ${b} answered ${outcome.status}`).toBe(
        outcome.status === 200 ? BATCH : 0,
      );
    });
    for (const outcome of late)
      expect(outcome).toMatchObject({ status: 503, connection: 'close', error: null });
    expect(code).toBe(0);
  });
});
