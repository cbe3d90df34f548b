/**
 * Profiling driver for the content reads (issue 20, item 5): one embedded app over 2,000 places
 * and 4,000 edges (as `BENCH_READS_ONLY=1` of import.bench.ts), then each target in TARGETS
 * (item, uncached, list, health, bare) under autocannon (10 connections, SECONDS each, after a
 * 1 s warm-up) in a separate process. Prints requests/s and this process's CPU time per request;
 * PROF=1 writes the inspector's CPU profile of each timed run to OUT-<target>.cpuprofile.
 * Not part of `pnpm bench`.
 *
 * Run: TARGETS=item,uncached,list SECONDS=5 PROF=1 OUT=/tmp/reads \
 *   npx tsx --tsconfig bench/tsconfig.json bench/profile-reads.ts
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import * as srcApp from '../src/index';
import { benchApi, benchAppEnv, OWNER_KEY, placeEdges, placeRecord, placeType } from './bench-app';

// APP=dist: the built app (dist/index.js, what ships: `pnpm build` first; APP_DIR=<dir> another
// build's copy inside this package, e.g. .bench-distA, for an A/B); else the sources through tsx.
const { buildApp, loadConfig } = (
  process.env.APP === 'dist'
    ? await import(new URL(`../${process.env.APP_DIR ?? 'dist'}/index.js`, import.meta.url).href)
    : srcApp
) as typeof srcApp;
const TARGETS = (process.env.TARGETS ?? 'item,uncached,list,health,bare').split(',');
const SECONDS = Number(process.env.SECONDS ?? 5);
const OUT = process.env.OUT ?? '/tmp/reads';
const PROF = process.env.PROF === '1';
const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
const run = promisify(execFile);

async function cannon(url: string, headers: Record<string, string>, seconds: number) {
  const args = [autocannonBin, '-c', '10', '-d', String(seconds), '-j'];
  for (const [key, value] of Object.entries(headers)) args.push('-H', `${key}=${value}`);
  args.push(url);
  const cpu = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const used = process.cpuUsage(cpu);
  const r = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    non2xx: number;
    errors: number;
  };
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors on ${url}`);
  return { rps: r.requests.average, cpuUs: (used.user + used.system) / Math.max(1, r.requests.total) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'trellis-reads-profile-'));
const configWith = (readCacheMs?: number) =>
  loadConfig(
    benchAppEnv(dataDir, readCacheMs === undefined ? {} : { CONTENT_READ_CACHE_MS: String(readCacheMs) }),
  );
const apps: FastifyInstance[] = [];
try {
  const app = await buildApp({ config: configWith(), logger: false });
  apps.push(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const call = async (site: string | null, method: string, path: string, body?: unknown) =>
    (await benchApi(base, site, method, path, body)).text;
  const site = JSON.parse(
    await call(null, 'POST', '/api/sites', {
      name: 'Bench',
      slug: `p-${Date.now().toString(36)}`,
      starterKit: 'none',
    }),
  ).id as string;
  await call(site, 'POST', '/api/types', placeType);
  const N = 2000;
  await call(site, 'POST', '/api/import/json', {
    typeName: 'place',
    batchSize: 500,
    records: Array.from({ length: N }, (_, i) => placeRecord(i)),
  });
  await call(site, 'POST', '/api/import/edges', {
    batchSize: 2000,
    edges: placeEdges(2 * N, N),
  });
  const path = '/api/content/place/place:place-42';
  const bytes = await call(site, 'GET', path);
  const bare = Fastify({ logger: false });
  apps.push(bare);
  bare.get('/bare', async (_request, reply) => reply.type('application/json').send(bytes));
  const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 });
  const uncachedApp = await buildApp({ config: configWith(0), logger: false });
  apps.push(uncachedApp);
  const uncachedBase = await uncachedApp.listen({ host: '127.0.0.1', port: 0 });
  const auth = { authorization: `Bearer ${OWNER_KEY}`, 'x-site-id': site };
  const targets: Record<string, [string, Record<string, string>]> = {
    item: [`${base}${path}`, auth],
    uncached: [`${uncachedBase}${path}`, auth],
    list: [`${base}/api/content/place?limit=50&withMeta=true`, auth],
    health: [`${base}/api/health`, {}],
    bare: [`${bareBase}/bare`, {}],
  };
  if (process.env.INJECT === '1') {
    // In-process: 10 concurrent loops of app.inject (no sockets), CPU time per request, the
    // median of 5 rounds. Steadier than autocannon on a busy machine; the inject overhead is
    // the same for every route, so compare differences, not ratios.
    const injected: Record<string, [FastifyInstance, string, Record<string, string>]> = {
      item: [app, path, auth],
      uncached: [uncachedApp, path, auth],
      list: [app, '/api/content/place?limit=50&withMeta=true', auth],
      health: [app, '/api/health', {}],
      bare: [bare, '/bare', {}],
    };
    const ROUND = Number(process.env.ROUND ?? 4000);
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    for (const name of TARGETS) {
      const [target, url, headers] = injected[name] as [FastifyInstance, string, Record<string, string>];
      const loop = async (count: number) => {
        for (let i = 0; i < count; i += 1) {
          const response = await target.inject({ method: 'GET', url, headers });
          if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode}`);
        }
      };
      const round = async () => {
        const cpu = process.cpuUsage();
        await Promise.all(Array.from({ length: 10 }, () => loop(ROUND / 10)));
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / ROUND;
      };
      await round();
      const rounds: number[] = [];
      if (PROF) await session.post('Profiler.start');
      for (let r = 0; r < 5; r += 1) rounds.push(await round());
      if (PROF) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(`${OUT}-inject-${name}.cpuprofile`, JSON.stringify(profile));
      }
      rounds.sort((a, b) => a - b);
      const epoch = (name === 'uncached' ? uncachedApp : app).trellis.accessEpoch.stats();
      console.log(
        `${name}: inject ${rounds[2]?.toFixed(1)} µs CPU/request, ${(epoch.checks / Math.max(1, epoch.reads)).toFixed(1)} requests per access-epoch read so far`,
      );
      console.log(
        `${name}: inject ${rounds[2]?.toFixed(1)} µs CPU/request (min ${rounds[0]?.toFixed(1)}, load ${loadavg()[0]?.toFixed(1)})`,
      );
    }
    process.exitCode = 0;
  } else {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    for (const name of TARGETS) {
      const [url, headers] = targets[name] as [string, Record<string, string>];
      await cannon(url, headers, 1);
      if (PROF) await session.post('Profiler.start');
      const r = await cannon(url, headers, SECONDS);
      if (PROF) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(`${OUT}-${name}.cpuprofile`, JSON.stringify(profile));
      }
      const epochApp = name === 'uncached' ? uncachedApp : app;
      const epoch = epochApp.trellis.accessEpoch.stats();
      console.log(`${name}: access epoch so far: ${epoch.checks} checks, ${epoch.reads} reads`);
      console.log(
        `${name}: ${Math.round(r.rps)} req/s, ${r.cpuUs.toFixed(1)} µs CPU/request (load ${loadavg()[0]?.toFixed(1)})`,
      );
    }
  }
} finally {
  for (const app of apps.reverse()) await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
