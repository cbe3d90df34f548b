import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@trelliscms/sdk';
import { buildApp, loadConfig } from '@trelliscms/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every request the SDK can make must reach a route the server has. The SDK client runs on a
 * recording `fetch` (no network): each namespace method is called with placeholder arguments,
 * and each recorded (method, path) is matched against the real server's route table.
 */

interface Recorded {
  /** `namespace.method`, e.g. `site.content.get`. */
  caller: string;
  method: string;
  path: string;
}

/**
 * Arguments for methods whose plain placeholders (`'x'` for each required parameter) would
 * stop them before their first request, or would skip a request they can make.
 */
const ARGUMENTS: Record<string, unknown[]> = {
  'site.audit.verify': [{ graph: 'graph-x' }],
  'site.audit.checklist': [{ graph: 'graph-x' }],
  'site.import.records': [{ typeName: 'x', records: [{ slug: 'x' }] }],
  'site.import.allEdges': [{ edges: [{ from: 'x:a', edge: 'X', to: 'x:b' }] }],
  'site.import.removeEdges': [{ edges: [{ from: 'x:a', edge: 'X', to: 'x:b' }] }],
  'site.media.upload': [new Blob(['x']), 'x.png'],
  'site.content.version': ['x', 'x', 1],
  'site.releases.replay': [{ envId: 'x' }],
  'site.releases.live': [{ envId: 'x' }],
};

let dataDir: string;
let app: FastifyInstance;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'trellis-sdk-routes-'));
  app = await buildApp({
    config: loadConfig({ CMS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', CMS_SCHEDULER: '0' }),
    logger: false,
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** Calls every function of every namespace of the client and of `client.site(id)`. */
async function recordEveryCall(): Promise<{ recorded: Recorded[]; callers: string[] }> {
  const recorded: Recorded[] = [];
  let caller = '';
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    recorded.push({ caller, method: request.method, path: new URL(request.url).pathname });
    // Not what the method expects, so it stops after its first request; composite methods'
    // later requests are the requests of the methods they call, which are called on their own.
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = createClient({ baseUrl: 'http://sdk-routes.invalid', fetch, retry: false });
  const callers: string[] = [];
  const namespaces: [string, object][] = [
    ...Object.entries(client).filter(([, value]) => typeof value === 'object'),
  ].map(([name, value]) => [name, value as object]);
  for (const [name, value] of Object.entries(client.site('site:x'))) {
    if (typeof value === 'object' && value !== null) namespaces.push([`site.${name}`, value]);
  }
  for (const [namespace, api] of namespaces) {
    for (const [name, fn] of Object.entries(api)) {
      if (typeof fn !== 'function') continue;
      caller = `${namespace}.${name}`;
      callers.push(caller);
      const args = ARGUMENTS[caller] ?? Array.from({ length: fn.length }, () => 'x');
      try {
        const result: unknown = (fn as (...args: unknown[]) => unknown)(...args);
        // An async generator (content.iterate) makes its first request on its first step.
        if (isAsyncIterable(result)) await result[Symbol.asyncIterator]().next();
        else await result;
      } catch {
        // The placeholder answer does not parse; only the request matters here.
      }
    }
  }
  return { recorded, callers };
}

describe('the SDK and the server route table', () => {
  it('every SDK method makes a request, and every request has a route on the server', async () => {
    const { recorded, callers } = await recordEveryCall();
    expect(callers.length).toBeGreaterThan(50);
    expect(
      Object.keys(ARGUMENTS).filter((caller) => !callers.includes(caller)),
      'stale ARGUMENTS',
    ).toEqual([]);
    const silent = callers.filter((caller) => !recorded.some((request) => request.caller === caller));
    expect(silent, 'methods that made no request: give them arguments in ARGUMENTS').toEqual([]);

    const missing = recorded
      .filter(({ method, path }) => {
        const route = app.findRoute({ method, url: path });
        // A catch-all match would hide a missing route.
        return route === null || '*' in (route.params as Record<string, string>);
      })
      .map(({ caller, method, path }) => `${caller}: ${method} ${path}`);
    expect(missing).toEqual([]);
  });
});
