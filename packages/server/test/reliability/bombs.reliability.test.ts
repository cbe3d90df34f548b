import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  apiEarlyAnswer,
  createBlogSite,
  type LatencyReport,
  LONG,
  latencyProbe,
  rssOf,
  type ServerProcess,
  startServer,
} from './harness';

/**
 * Size limits and bombs: bodies built to cost the server time or memory, each sent as an
 * editor would (an API key of the site). Every one must be answered without a 5xx, in bounded
 * time, with a bounded answer, while GET /api/health keeps answering, and without the server's
 * memory growing without bound. What each waits for is said where it waits.
 */

/** The longest any of these may take to be answered. */
const ANSWER_MS = 3_000;
/** The longest GET /api/health may take while one is processed (issue 16: 100 ms; a busy 2-core machine needs slack). */
const HEALTH_MS = 500;
/**
 * The same for the probes that pass today, which must not turn flaky on a loaded machine: a
 * 40 MB upload over loopback alone costs the event loop a few hundred ms there.
 */
const HEALTH_MS_LOADED = 1_500;
/** The most the server's RSS may grow over one. */
const RSS_GROWTH = 200 * 1024 * 1024;
/** The largest answer (issue 16 item 3: "at most a few dozen issues in an error body"). */
const ANSWER_BYTES = 64 * 1024;

let server: ServerProcess;
let site: { id: string };

beforeAll(async () => {
  server = await startServer();
  site = await createBlogSite(server, { slug: 'bombs' });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

interface Shot {
  status: number;
  ms: number;
  bytes: number;
  health: LatencyReport;
  rssGrowth: number;
}

/** Sends `body` to POST `path` as the site, watching health latency and RSS meanwhile. */
async function fire(path: string, body: string, headers: Record<string, string> = {}): Promise<Shot> {
  const before = rssOf(server.pid) ?? 0;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(server.pid) ?? 0);
  }, 20);
  const health = latencyProbe(server.url);
  const started = performance.now();
  const answer = await apiEarlyAnswer(server, 'POST', path, { site: site.id, body, headers });
  const ms = Math.round(performance.now() - started);
  const report = await health.stop();
  clearInterval(sampler);
  const shot = {
    status: answer.status,
    ms,
    bytes: answer.text.length,
    health: report,
    rssGrowth: peak - before,
  };
  console.info(
    `[bombs] POST ${path} (${(body.length / 1e6).toFixed(1)} MB): ${shot.status} in ${ms} ms, ${shot.bytes} B answer, health max ${report.maxMs} ms over ${report.count} calls, RSS +${Math.round(shot.rssGrowth / 1e6)} MB`,
  );
  return shot;
}

function expectBounded(shot: Shot, options: { answerBytes?: number; healthMs?: number } = {}): void {
  expect(shot.status).toBeLessThan(500);
  expect(shot.ms).toBeLessThan(ANSWER_MS);
  expect(shot.bytes).toBeLessThan(options.answerBytes ?? ANSWER_BYTES);
  expect(shot.health.failures).toEqual([]);
  expect(shot.health.maxMs).toBeLessThan(options.healthMs ?? HEALTH_MS);
  expect(shot.rssGrowth).toBeLessThan(RSS_GROWTH);
}

/** An object of `keys` keys, as JSON. */
function manyKeys(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":${i}`);
  return `{"title":"bomb",${parts.join(',')}}`;
}

describe('size limits and bombs', () => {
  it('refuses a body over the limit with 413, quickly', async () => {
    // Over a raw socket: the server may answer 413 and close before the body is all written,
    // which an HTTP client reports as EPIPE instead of the answer.
    const size = 40 * 1024 * 1024;
    const health = latencyProbe(server.url);
    const started = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      let answer = '';
      let done = false;
      const finish = (value: number | Error) => {
        if (done) return;
        done = true;
        socket.destroy();
        if (typeof value === 'number') resolve(value);
        else reject(value);
      };
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        const match = /^HTTP\/1\.1 (\d{3})/.exec(answer);
        if (match) finish(Number(match[1]));
      });
      socket.on('error', (error) => {
        if (!answer) finish(error);
      });
      socket.on('close', () => finish(new Error(`closed without an answer: ${answer.slice(0, 100)}`)));
      socket.on('connect', async () => {
        socket.write(
          `POST /api/content/post HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.ownerKey}\r\nX-Site-Id: ${site.id}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
        );
        // A server that checks the declared length answers before any of the body: wait for
        // that first (up to 2 s), so the body written after it cannot end in EPIPE before the
        // answer is read; a server that reads the body gets it.
        await new Promise((ready) => {
          const timer = setTimeout(ready, 2_000);
          socket.once('data', () => {
            clearTimeout(timer);
            ready(undefined);
          });
        });
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        for (let sent = 0; sent < size && !done && !socket.destroyed; sent += chunk.length) {
          if (!socket.write(chunk)) await new Promise((drained) => socket.once('drain', drained));
        }
      });
    });
    const ms = Math.round(performance.now() - started);
    const report = await health.stop();
    console.info(
      `[bombs] POST /api/content/post (40 MB declared): ${status} in ${ms} ms, health max ${report.maxMs} ms`,
    );
    expect(status).toBe(413);
    expect(ms).toBeLessThan(ANSWER_MS);
    expect(report.failures).toEqual([]);
    expect(report.maxMs).toBeLessThan(HEALTH_MS_LOADED);
  });

  it('answers a deeply nested body without a 5xx', async () => {
    const depth = LONG ? 1_000_000 : 100_000;
    const shot = await fire(
      '/api/content/post',
      `{"title":"deep","body":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    );
    expectBounded(shot, { healthMs: HEALTH_MS_LOADED });
  });

  const longString = JSON.stringify({ title: 'long', body: 'y'.repeat(LONG ? 30_000_000 : 20_000_000) });
  let longShot: Shot | undefined;

  it('answers a body with a very long string without a 5xx', async () => {
    longShot = await fire('/api/content/post', longString);
    expect(longShot.status).toBeLessThan(500);
  });

  it('answers a body with a very long string quickly, without blocking health or growing memory', async () => {
    expectBounded(longShot ?? (await fire('/api/content/post', longString)));
  });

  it('answers an object of many keys quickly, in a short answer, without blocking health', async () => {
    expectBounded(await fire('/api/content/post', manyKeys(LONG ? 1_000_000 : 200_000)));
  });

  it('imports many records without blocking health', async () => {
    const count = LONG ? 100_000 : 20_000;
    const records = Array.from({ length: count }, (_, i) => ({ title: `bulk-${i}`, body: 'z'.repeat(100) }));
    const shot = await fire(
      '/api/import/json',
      JSON.stringify({ typeName: 'post', records, batchSize: 500 }),
    );
    expect(shot.status).toBe(200);
    expect(shot.health.failures).toEqual([]);
    expect(shot.health.maxMs).toBeLessThan(HEALTH_MS);
  });

  it('answers a gzip-encoded body with 415 naming the encoding', async () => {
    const answer = await api(server, 'POST', '/api/content/post', {
      site: site.id,
      body: '\x1f\x8b\x08\x00garbage',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(answer.status).toBe(415);
    expect(answer.text).toMatch(/gzip/);
  });

  it('answers garbled multipart (truncated, no boundary) with 400 and the error shape', async () => {
    for (const [contentType, body] of [
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
      ],
      ['multipart/form-data', '--x\r\n\r\nabc\r\n--x--'],
    ] as const) {
      const answer = await api(server, 'POST', '/api/media/upload', {
        site: site.id,
        body,
        headers: { 'content-type': contentType },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
  });
});
