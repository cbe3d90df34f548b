import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { TEST_OWNER_KEY } from '../../../test/helpers/test-platform';
import { loadConfig } from '../../config';
import { createEmbeddedEngine } from '../../engines/embedded';
import { EngineError, type Graph, type GraphEngine } from '../../engines/port';
import { getSite, toSiteView } from '../../platform/sites';
import { boundedGraph, deadlineError } from '../../shared/deadline-graph';
import { buildApp } from '../app';

// MAX_QUERY_TIMEOUT_MS bounds every request that works on a site graph (issue 16, item 9),
// not only the diagnostics routes: with a 1 ms budget, content lists, imports, exports and
// builds answer 504 `query_timeout` (they answered 200 before).

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The engine with every graph it creates or opens passed through `wrap` (everything else as it is). */
function withGraphs(engine: GraphEngine, wrap: (graph: Graph) => Graph): GraphEngine {
  return {
    get name() {
      return engine.name;
    },
    init: () => engine.init(),
    close: () => engine.close(),
    endpoint: () => engine.endpoint(),
    createGraph: async (name) => wrap(await engine.createGraph(name)),
    openGraph: async (name) => {
      const graph = await engine.openGraph(name);
      return graph && wrap(graph);
    },
    dropGraph: (name) => engine.dropGraph(name),
    listGraphs: () => engine.listGraphs(),
    procedures: () => engine.procedures(),
    probe: (timeoutMs) => engine.probe(timeoutMs),
  };
}

/**
 * The engine with every graph call taking at least `delayMs` more: engine work that lasts,
 * whatever the machine's speed, so a 1 ms budget is always spent by the handler's first query.
 */
function slowEngine(engine: GraphEngine, delayMs: number): GraphEngine {
  const slow = (graph: Graph): Graph =>
    new Proxy(graph, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await sleep(delayMs);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return withGraphs(engine, slow);
}

let site: ContentTestSite;
let bounded: FastifyInstance | null = null;
beforeEach(async () => {
  site = await createContentTestSite();
  await site.createType({
    name: 'note',
    label: 'Note',
    nodeLabel: 'Note',
    keyField: 'slug',
    fields: [
      { name: 'slug', type: 'string', required: true },
      { name: 'body', type: 'text' },
    ],
  });
  const seeded = await site.request({
    method: 'POST',
    url: '/api/import/json',
    payload: { typeName: 'note', records: [{ slug: 'one', body: 'One' }], publish: 'prod' },
  });
  expect(seeded.statusCode, seeded.body).toBe(200);
});
afterEach(async () => {
  await bounded?.close();
  bounded = null;
  await site.close();
});

/** The engine, counting the calls of each graph method in `calls` (by name, and by name:first argument). */
function countingEngine(engine: GraphEngine, calls: Map<string, number>): GraphEngine {
  // one wrapper per graph, as the engine keeps one graph object per name
  const wrappers = new WeakMap<Graph, Graph>();
  const counted = (graph: Graph): Graph => {
    const known = wrappers.get(graph);
    if (known) return known;
    const wrapper = new Proxy(graph, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          // by method, and by method and first argument when it is a string (a label, an id)
          for (const name of [
            String(key),
            typeof args[0] === 'string' ? `${String(key)}:${args[0]}` : null,
          ]) {
            if (name !== null) calls.set(name, (calls.get(name) ?? 0) + 1);
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    wrappers.set(graph, wrapper);
    return wrapper;
  };
  return withGraphs(engine, counted);
}

/** A second app on the site's data, with the query budget given (and optionally a slow engine). */
async function appWithBudget(
  timeoutMs: number,
  delayMs = 0,
  wrap: (engine: GraphEngine) => GraphEngine = (engine) => engine,
  env: Record<string, string> = {},
): Promise<FastifyInstance> {
  const dataDir = site.platform.dataDir;
  const config = loadConfig({
    CMS_DATA_DIR: dataDir,
    CMS_OWNER_KEY: TEST_OWNER_KEY,
    LOG_LEVEL: 'silent',
    CMS_SCHEDULER: '0',
    RATE_LIMIT_MAX: '100000',
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
    MAX_QUERY_TIMEOUT_MS: String(timeoutMs),
    ...env,
  });
  const engine = createEmbeddedEngine({ dataDir });
  bounded = await buildApp({
    config,
    engine: wrap(delayMs > 0 ? slowEngine(engine, delayMs) : engine),
    logger: false,
  });
  await bounded.ready();
  return bounded;
}

describe('MAX_QUERY_TIMEOUT_MS on site routes', () => {
  it('answers 504 query_timeout for content lists, imports, exports and builds once the budget is spent', async () => {
    const app = await appWithBudget(1, 5);
    const headers = site.headers;
    const records = Array.from({ length: 50 }, (_, i) => ({ slug: `late-${i}`, body: 'x' }));
    const cases = [
      { method: 'GET', url: '/api/content/note' },
      { method: 'GET', url: '/api/content/note/note:one' },
      { method: 'POST', url: '/api/import/json', payload: { typeName: 'note', records } },
      {
        method: 'POST',
        url: '/api/import/edges',
        payload: { edges: [{ from: 'note:one', edge: 'LINKS', to: 'note:one' }] },
      },
      { method: 'GET', url: '/api/export' },
      { method: 'POST', url: '/api/build', payload: { env: 'prod', mode: 'full' } },
      { method: 'POST', url: '/api/build?async=1', payload: { env: 'prod' } },
      { method: 'POST', url: '/api/build?dryRun=1', payload: { env: 'prod' } },
    ] as const;
    for (const request of cases) {
      const res = await app.inject({ ...request, headers });
      expect(res.statusCode, `${request.method} ${request.url}: ${res.body.slice(0, 300)}`).toBe(504);
      expect(res.json()).toMatchObject({ code: 'query_timeout' });
      expect(res.json().error).toContain('1 ms');
    }
    // nothing of the import was written, no build was recorded
    expect(await site.graph.getNode('note:late-0')).toBeNull();
    expect((await site.graph.findNodes({ label: 'Build' })).total).toBe(0);
    // what makes no engine call on the site graph is not bounded
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('answers 504 query_timeout for a saved query run that outlasts the budget, and runs it within one', async () => {
    const created = await site.request({
      method: 'POST',
      url: '/api/queries',
      payload: { name: 'notes', query: { type: 'note', sort: 'slug', select: ['body'] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const run = {
      method: 'POST',
      url: '/api/queries/notes/run',
      payload: {},
      headers: site.headers,
    } as const;
    // every engine call takes 5 ms more: the run's reads spend a 1 ms budget
    const slow = await appWithBudget(1, 5);
    const late = await slow.inject(run);
    expect(late.statusCode, late.body).toBe(504);
    expect(late.json()).toMatchObject({ code: 'query_timeout' });
    expect(late.json().error).toContain('1 ms');
    await slow.close();
    bounded = null;
    const roomy = await appWithBudget(60_000, 5);
    const inTime = await roomy.inject(run);
    expect(inTime.statusCode, inTime.body).toBe(200);
    expect(inTime.json()).toMatchObject({ total: 1, items: [{ id: 'note:one', body: 'One' }] });
  });

  it('stops an import at the budget: the batches written stay whole, the 504 says how many', async () => {
    const app = await appWithBudget(300);
    const records = Array.from({ length: 20_000 }, (_, i) => ({
      slug: `bulk-${i}`,
      body: 'lorem '.repeat(20),
    }));
    const res = await app.inject({
      method: 'POST',
      url: '/api/import/json',
      headers: site.headers,
      payload: { typeName: 'note', records, batchSize: 250 },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(504);
    const body = res.json();
    expect(body).toMatchObject({ code: 'query_timeout', failed: 0, updated: 0 });
    expect(body.error).toContain('300 ms');
    expect(body.created).toBeLessThan(records.length);
    // whole batches only: the one running at the deadline was rolled back
    expect(body.created % 250).toBe(0);
    const stored = await site.graph.findNodes({ label: 'Note', limit: 0 });
    expect(stored.total).toBe(1 + body.created);
  });

  it('bounds the uncached item read of GET item (read cache off, type known) by the budget', async () => {
    // The item read of a known type goes to the site graph without a bounded graph made for the
    // request: it must be bounded all the same (no read past the budget answers, an engine's own
    // timeout is reported against the budget) and answer what it answered before when in time.
    let mode: 'as-is' | 'late' | 'engine-timeout' | 'fails' = 'as-is';
    const itemReads: string[] = [];
    const switchable = (graph: Graph): Graph =>
      new Proxy(graph, {
        get(target, key) {
          const value = Reflect.get(target, key, target) as unknown;
          if (key !== 'getNodeJsonWithEdges' || typeof value !== 'function') return value;
          return async (id: string) => {
            itemReads.push(id);
            if (mode === 'late') await sleep(400);
            if (mode === 'engine-timeout') throw new EngineError('timeout', 'the engine stopped after 3 ms');
            if (mode === 'fails') throw new Error('disk on fire');
            return (value as (id: string) => unknown).call(target, id);
          };
        },
      });
    const app = await appWithBudget(200, 0, (engine) => withGraphs(engine, switchable), {
      CONTENT_READ_CACHE_MS: '0',
    });
    const get = (id = 'note:one') =>
      app.inject({ method: 'GET', url: `/api/content/note/${id}`, headers: site.headers });
    const first = await get();
    expect(first.statusCode, first.body).toBe(200);
    // the type definition is now in its read cache: the next reads take the direct path
    const inTime = await get();
    expect(inTime.statusCode, inTime.body).toBe(200);
    expect(inTime.body).toBe(first.body);
    expect(inTime.headers.etag).toBe(first.headers.etag);
    expect(inTime.json()).toMatchObject({ id: 'note:one', fields: { body: 'One' } });
    expect((await get('note:missing')).statusCode).toBe(404);
    const reads = itemReads.length;
    mode = 'late';
    const late = await get();
    expect(late.statusCode, late.body).toBe(504);
    expect(late.json()).toMatchObject({ code: 'query_timeout' });
    expect(late.json().error).toContain('200 ms');
    mode = 'engine-timeout';
    const stopped = await get();
    expect(stopped.statusCode, stopped.body).toBe(504);
    expect(stopped.json().error).toContain('200 ms');
    expect(stopped.json().error).not.toContain('3 ms');
    mode = 'fails';
    expect((await get()).statusCode).toBe(500);
    // each request read the engine once (nothing answered from a cache)
    expect(itemReads.length).toBe(reads + 3);
    mode = 'as-is';
    const again = await get();
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
  });

  it('keeps what is cached per graph across requests, though each request has a bounded graph of its own', async () => {
    await site.createType({
      name: 'member',
      label: 'Member',
      nodeLabel: 'Member',
      keyField: 'handle',
      fields: [
        { name: 'handle', type: 'string', required: true },
        { name: 'email', type: 'string', unique: true },
      ],
    });
    const calls = new Map<string, number>();
    const app = await appWithBudget(60_000, 0, (engine) => countingEngine(engine, calls));
    for (const handle of ['ann', 'bob', 'cy']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/content/member',
        headers: site.headers,
        payload: { handle, email: `${handle}@example.test` },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    // the unique constraint is declared once per graph, not once per request
    expect(calls.get('ensureUnique:Member')).toBe(1);
  });

  it('records a sync build whose snapshot read ran out of budget as failed, and answers the timeout', async () => {
    const { app } = site.platform;
    const record = await getSite(app.trellis.platform, site.siteId);
    // a graph whose reads of the snapshot time out (as a bounded graph past its deadline does)
    const timingOut = new Proxy(site.graph, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key === 'findNodes' || key === 'getEdges') return async () => Promise.reject(deadlineError(5));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const graph = boundedGraph(timingOut, { at: Date.now() + 60_000, timeoutMs: 60_000 });
    const failure = await app.builds
      .runSync({
        site: toSiteView(record!),
        graph,
        env: 'dev',
        mode: 'full',
        actor: 'test',
        serveCheckUrl: null,
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failure).toMatchObject({ kind: 'timeout' });
    const builds = await site.graph.findNodes({ label: 'Build' });
    expect(builds.nodes.map((node) => node.props.status)).toEqual(['error']);
  });
});
