/**
 * In-process A/B of the content reads (issue 20, item 5): two builds of the app in one process
 * (A from APP_A, a copy of another build's dist/ placed inside this package, e.g. `cp -r dist
 * .bench-distA` before changing anything; B from APP_B, default dist/), each over its own data dir with the
 * same 2,000 places and 4,000 edges, then ROUNDS rounds per target in alternation (A B B A …),
 * each round 10 concurrent `app.inject` loops of ROUND requests: the CPU time per request of
 * each round. No sockets, so it holds better than autocannon on a busy machine; inject costs
 * the same for both builds, so compare A with B, not with the bare route.
 * TIGHT=1 instead times the uncached route's body alone in B (the sources): the record read and
 * serialized as before (getItem + JSON.stringify) against getItemJson, in alternation.
 * RATE_LIMIT=1 times the rate-limit hook alone (bare apps: none, the library's hook, ours).
 * Not part of `pnpm bench`.
 *
 * Run: APP_A=.bench-distA TARGETS=uncached,item,list,health ROUNDS=8 \
 *   npx tsx --tsconfig bench/tsconfig.json bench/ab-reads.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StoredContentType } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import { benchAppEnv, OWNER_KEY, placeEdges, placeRecord, placeType } from './bench-app';

type AppModule = typeof import('../src/index');
const here = new URL('..', import.meta.url).pathname;
const TARGETS = (process.env.TARGETS ?? 'uncached,item,list,health').split(',');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const ROUND = Number(process.env.ROUND ?? 2000);
const N = 2000;
const dirs: string[] = [];
const apps: FastifyInstance[] = [];

async function seeded(module: AppModule, readCacheMs: number | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'trellis-ab-reads-'));
  dirs.push(dataDir);
  const env = benchAppEnv(
    dataDir,
    readCacheMs === undefined ? {} : { CONTENT_READ_CACHE_MS: String(readCacheMs) },
  );
  const app = await module.buildApp({ config: module.loadConfig(env), logger: false });
  apps.push(app);
  const call = async (site: string | null, method: string, url: string, payload?: unknown) => {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${OWNER_KEY}`, ...(site ? { 'x-site-id': site } : {}) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const created = await call(null, 'POST', '/api/sites', { name: 'Bench', slug: 'ab', starterKit: 'none' });
  const site = created.id;
  await call(site, 'POST', '/api/types', placeType);
  await call(site, 'POST', '/api/import/json', {
    typeName: 'place',
    batchSize: 500,
    records: Array.from({ length: N }, (_, i) => placeRecord(i)),
  });
  await call(site, 'POST', '/api/import/edges', { batchSize: 2000, edges: placeEdges(2 * N, N) });
  return { app, site: site as string, graphName: created.graphName as string };
}

const path = '/api/content/place/place:place-42';
const listPath = '/api/content/place?limit=50&withMeta=true';

async function round(app: FastifyInstance, url: string, headers: Record<string, string>): Promise<number> {
  const loop = async (count: number) => {
    for (let i = 0; i < count; i += 1) {
      const response = await app.inject({ method: 'GET', url, headers });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, () => loop(ROUND / 10)));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / ROUND;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * RATE_LIMIT=1: the rate limit alone, on two bare Fastify apps with one route: the
 * @fastify/rate-limit hook (what rate-limit.ts did before) against rate-limit.ts's plugin.
 */
async function rateLimitOnly(): Promise<void> {
  const { default: rateLimit } = await import('@fastify/rate-limit');
  const { rateLimitKey, rateLimitPlugin } = await import('../src/http/plugins/rate-limit');
  const { default: Fastify } = await import('fastify');
  const library = Fastify({ logger: false });
  await library.register(rateLimit, {
    global: false,
    max: 1e9,
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
  });
  const limit = library.rateLimit();
  library.addHook('onRequest', (request, reply, done) => {
    limit.call(library, request, reply).then(
      () => done(),
      (error: Error) => done(error),
    );
  });
  // As rate-limit.ts had beside it (and still has): the auth-failure check and onResponse hook.
  const { AuthFailureLimiter } = await import('../src/auth/auth-failure-limiter');
  const { requestCredential } = await import('../src/auth/request-credential');
  const failures = new AuthFailureLimiter({ max: 1000, windowMs: 60_000 });
  library.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode === 401) failures.recordFailure(request.ip);
    else if (request.principal) {
      const hash = requestCredential(request).hash;
      if (hash !== null) failures.recordSuccess(hash);
    }
    done();
  });
  const ours = Fastify({ logger: false });
  await ours.register(rateLimitPlugin, { max: 1e9, timeWindowMs: 60_000, maxAuthFailures: 1000 });
  const none = Fastify({ logger: false });
  for (const app of [library, ours, none]) {
    app.get('/x', { config: { public: true } }, async (_request, reply) => reply.send('{}'));
    apps.push(app);
  }
  const headers = { authorization: `Bearer ${OWNER_KEY}` };
  const rows: Record<string, number[]> = { library: [], ours: [], none: [] };
  for (let r = 0; r < ROUNDS; r += 1) {
    for (const [name, app] of r % 2 === 0
      ? ([
          ['library', library],
          ['ours', ours],
          ['none', none],
        ] as const)
      : ([
          ['none', none],
          ['ours', ours],
          ['library', library],
        ] as const)) {
      rows[name]?.push(await round(app, '/x', headers));
    }
  }
  console.log(
    `rate limit alone, inject µs CPU/request (load ${loadavg()[0]?.toFixed(1)}): no limit ${median(rows.none ?? []).toFixed(1)}, @fastify/rate-limit's hook ${median(rows.library ?? []).toFixed(1)}, rate-limit.ts ${median(rows.ours ?? []).toFixed(1)}`,
  );
}

try {
  if (process.env.RATE_LIMIT === '1') {
    await rateLimitOnly();
  } else if (process.env.TIGHT === '1') {
    const src = (await import('../src/index')) as AppModule;
    const { getItem, getItemJson } = await import('../src/content/item-repository');
    const { getType } = await import('../src/content/type-repository');
    const { app, graphName } = await seeded(src, 0);
    const graph = await app.trellis.engine.openGraph(graphName);
    if (!graph) throw new Error('no graph');
    const type = (await getType(graph, 'place')) as StoredContentType;
    const id = 'place:place-42';
    const old = async () => JSON.stringify((await getItem({ graph, type, id })).record).length;
    const json = async () => (await getItemJson({ graph, type, id })).json.length;
    if ((await old()) !== (await json())) throw new Error('different answers');
    const time = async (fn: () => Promise<number>, count: number) => {
      const cpu = process.cpuUsage();
      for (let i = 0; i < count; i += 1) await fn();
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / count;
    };
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      if (r % 2 === 0) {
        a.push(await time(old, 20_000));
        b.push(await time(json, 20_000));
      } else {
        b.push(await time(json, 20_000));
        a.push(await time(old, 20_000));
      }
    }
    console.log(
      `tight loop, µs CPU per read (load ${loadavg()[0]?.toFixed(1)}): getItem + JSON.stringify ${median(a).toFixed(2)} (${a.map((v) => v.toFixed(2)).join(' ')}); getItemJson ${median(b).toFixed(2)} (${b.map((v) => v.toFixed(2)).join(' ')})`,
    );
  } else {
    const A = (await import(resolve(here, process.env.APP_A ?? '.bench-distA', 'index.js'))) as AppModule;
    const B = (await import(resolve(here, process.env.APP_B ?? 'dist', 'index.js'))) as AppModule;
    const builds = {
      A: { cached: await seeded(A, undefined), uncached: await seeded(A, 0) },
      B: { cached: await seeded(B, undefined), uncached: await seeded(B, 0) },
    };
    for (const target of TARGETS) {
      const results: Record<'A' | 'B', number[]> = { A: [], B: [] };
      const run = async (which: 'A' | 'B') => {
        const { app, site } = target === 'uncached' ? builds[which].uncached : builds[which].cached;
        const url = target === 'list' ? listPath : target === 'health' ? '/api/health' : path;
        const headers = { authorization: `Bearer ${OWNER_KEY}`, 'x-site-id': site };
        return round(app, url, headers);
      };
      await run('A');
      await run('B');
      for (let r = 0; r < ROUNDS; r += 1) {
        const order: Array<'A' | 'B'> = r % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
        for (const which of order) results[which].push(await run(which));
      }
      const fewer = results.B.filter((value, i) => value < (results.A[i] as number)).length;
      console.log(
        `${target}: inject µs CPU/request, median A ${median(results.A).toFixed(1)} B ${median(results.B).toFixed(1)}; B lower in ${fewer} of ${ROUNDS} rounds (load ${loadavg()[0]?.toFixed(1)}); A ${results.A.map((v) => v.toFixed(0)).join(' ')} | B ${results.B.map((v) => v.toFixed(0)).join(' ')}`,
      );
    }
  }
} finally {
  for (const app of apps.reverse()) await app.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
