import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';
import { freePort } from '../helpers/server-process';
import { testRandom } from '../helpers/test-seed';

/**
 * What the reliability probes share (docs/reliability.md): the built server as a child process,
 * HTTP calls with a credential, a latency probe, memory of a process, the seeded PRNG, and how a
 * probe that waits for a fix of issue 16 is marked.
 */

/** The server package's folder (this file is test/reliability/harness.ts). */
export const SERVER_DIR = fileURLToPath(new URL('../../', import.meta.url));
/** The built server's entry point (`pnpm test:reliability` builds first). */
export const SERVER_MAIN = join(SERVER_DIR, 'dist', 'main.js');

/** `RELIABILITY_LONG=1`: the long variants (more runs, bigger inputs). */
export const LONG = process.env.RELIABILITY_LONG === '1';

/** The default count, or the long one under `RELIABILITY_LONG=1`. */
export function scaled(normal: number, long: number): number {
  return LONG ? long : normal;
}

/** The seeded PRNG of a probe; the seed is logged (replay with `TRELLIS_TEST_SEED=<seed>`). */
export const probeRandom = testRandom;

/**
 * A probe of something issue 16 asks to fix (item `item`) that still fails: it runs, and is
 * expected to fail (vitest's `it.fails`), so the suite stays green while the fix is pending and
 * turns red once the fix lands (then make it a plain `it`). `RELIABILITY_STRICT=1` runs these
 * as plain tests, to see what fails today.
 */
export function waitsFor(item: number, name: string, fn: () => Promise<void>, timeout?: number): void {
  const title = `${name} [waits for issue 16 item ${item}]`;
  if (process.env.RELIABILITY_STRICT === '1') it(title, fn, timeout);
  else it.fails(title, fn, timeout);
}

/** Throws a clear message when the server is not built. */
export function assertBuilt(): void {
  if (!existsSync(SERVER_MAIN)) {
    throw new Error(
      `The reliability suite runs the built server; run \`pnpm build\` (missing ${SERVER_MAIN})`,
    );
  }
}

/** The built server running as a child process. */
export interface ServerProcess {
  url: string;
  ownerKey: string;
  /** The server's CMS_DATA_DIR. */
  dataDir: string;
  pid: number;
  /** Everything it wrote to stdout and stderr. */
  log(): string;
  /** Sends `signal` and waits until the process exited (SIGKILL after 15 s); returns its exit code and signal. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops it (SIGTERM) and removes the data dir unless it was given. */
  stop(): Promise<void>;
}

/** A fixed owner key, so a restart on the same data dir keeps working with it. */
export const OWNER_KEY = 'reliability-owner-key-0123456789abcdef';

/**
 * Starts the built server on `dataDir` (default: a fresh temp dir that `stop` removes) and waits
 * until GET /api/health answers. Load shedding is off unless `env` sets it: the probes measure
 * the event loop themselves.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { dataDir?: string } = {},
): Promise<ServerProcess> {
  assertBuilt();
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'trellis-reliability-')));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      CMS_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      CMS_OWNER_KEY: OWNER_KEY,
      CMS_SCHEDULER: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '1000000',
      LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The server did not answer within 90 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    }
    return { code: child.exitCode, signal: child.signalCode };
  };
  return {
    url,
    ownerKey: OWNER_KEY,
    dataDir,
    pid: child.pid ?? -1,
    log: () => output,
    kill,
    stop: async () => {
      await kill('SIGTERM');
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One API answer: status, headers and the body parsed as JSON when it is JSON. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Calls the server with a key (default: the owner's) and a site (X-Site-Id). */
export async function api(
  server: { url: string; ownerKey: string },
  method: string,
  path: string,
  options: { key?: string | null; site?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const key = options.key === undefined ? server.ownerKey : options.key;
  const headers: Record<string, string> = { ...options.headers };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.site) headers['x-site-id'] = options.site;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * Sends a large body the way a careful client does when the server may refuse it from its
 * declared length alone (413 before reading any of it, then closing): the headers of a body over 1 MiB go
 * first, and the body only if no answer came within 2 s (a server that reads the body gets it then). With
 * `fetch`, the body written after such an answer can end in EPIPE before the answer is read.
 * Write errors after the answer has arrived are ignored; before it, they fail the call.
 */
export function apiEarlyAnswer(
  server: { url: string; ownerKey: string },
  method: string,
  path: string,
  options: { site?: string; body: string; headers?: Record<string, string> },
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...options.headers,
    authorization: `Bearer ${server.ownerKey}`,
    'content-length': String(Buffer.byteLength(options.body)),
  };
  if (options.site) headers['x-site-id'] = options.site;
  return new Promise((resolve, reject) => {
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      answered = true;
      if (timer) clearTimeout(timer);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() });
        req.destroy();
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    // A body within the server's default limit (1 MiB) is read, never refused by its length.
    if (Buffer.byteLength(options.body) <= 1024 * 1024) {
      req.end(options.body);
      return;
    }
    req.flushHeaders();
    timer = setTimeout(() => {
      if (!answered) req.end(options.body);
    }, 2_000);
  });
}

/** Like {@link api}, but fails unless the status is `expected`; returns the parsed body. */
export async function apiOk<T = Record<string, unknown>>(
  server: { url: string; ownerKey: string },
  method: string,
  path: string,
  options: Parameters<typeof api>[3] & { expected?: number } = {},
): Promise<T> {
  const answer = await api(server, method, path, options);
  const expected = options.expected ?? (method === 'POST' ? 201 : 200);
  if (answer.status !== expected) {
    throw new Error(
      `${method} ${path}: expected ${expected}, got ${answer.status}: ${answer.text.slice(0, 500)}`,
    );
  }
  return answer.body as T;
}

/** A site with a `post` type (served at /posts/{slug}/), a `post` template and a home page listing the posts. */
export async function createBlogSite(
  server: { url: string; ownerKey: string },
  options: { slug: string; postTemplate?: string; homeTemplate?: string },
): Promise<{ id: string; slug: string; graphName: string }> {
  const site = await apiOk<{ id: string; slug: string; graphName: string }>(server, 'POST', '/api/sites', {
    body: { name: options.slug, slug: options.slug, starterKit: 'none' },
  });
  const call = (method: string, path: string, body: unknown) =>
    apiOk(server, method, path, { site: site.id, body });
  await call('POST', '/api/types', {
    name: 'post',
    label: 'Post',
    nodeLabel: 'Post',
    keyField: 'title',
    routePattern: '/posts/{slug}/',
    fields: [
      { name: 'title', type: 'string', required: true },
      { name: 'body', type: 'string' },
    ],
  });
  await call('POST', '/api/templates', {
    name: 'post',
    boundType: 'post',
    content: options.postTemplate ?? '<h1>{{ item.title }}</h1><p>{{ item.body }}</p>',
  });
  await call('POST', '/api/templates', {
    name: 'home',
    content:
      options.homeTemplate ??
      "{% list 'post' sort: 'title' as posts %}{% for p in posts %}<a href=\"{{ p.url }}\">{{ p.title }}</a>{% endfor %}",
  });
  await call('POST', '/api/routes', { slug: 'home', path: '/', kind: 'page', template: 'home' });
  return site;
}

/** Resident set size of a process, in bytes (Linux /proc), or null where it cannot be read. */
export function rssOf(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** What a {@link latencyProbe} saw. */
export interface LatencyReport {
  count: number;
  maxMs: number;
  p99Ms: number;
  /** Answers that were not 200 (e.g. 503 from load shedding), and failed requests. */
  failures: string[];
}

/**
 * Calls GET /api/health one request after another (each with a 30 s limit) until `stop()`,
 * recording how long each took. `stop()` waits for the request in flight.
 */
export function latencyProbe(url: string): { stop(): Promise<LatencyReport> } {
  const latencies: number[] = [];
  const failures: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(30_000) });
        await response.arrayBuffer();
        if (response.status !== 200) failures.push(`status ${response.status}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        count: sorted.length,
        maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
        p99Ms: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0),
        failures,
      };
    },
  };
}

/** Polls `check` every 50 ms until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
