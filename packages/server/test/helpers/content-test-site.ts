import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Graph, GraphEngine } from '../../src/engines/port';
import type { Clock } from '../../src/shared/clock';
import { startTestPlatform, type TestPlatform } from './test-platform';

export interface ContentTestSite {
  platform: TestPlatform;
  siteId: string;
  /** The site's own graph, to look at what the routes stored. */
  graph: Graph;
  /** Headers of the platform owner acting on the site. */
  headers: Record<string, string>;
  /** `app.inject` with the owner's headers (merged under `headers` given). */
  request(options: InjectOptions & { method: InjectOptions['method'] }): Promise<LightMyRequestResponse>;
  /** Creates a content type through POST /api/types and fails the test if it does not answer 201. */
  createType(definition: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A real app on a real embedded engine in a temp dir, with one site created through
 * POST /api/sites (no starter kit) and the owner's credentials for it.
 */
export async function createContentTestSite(
  options: {
    env?: Record<string, string>;
    slug?: string;
    clock?: Clock;
    logStream?: NodeJS.WritableStream;
    /** Makes the engine (default: embedded), as {@link startTestPlatform}. */
    engine?: (dataDir: string) => GraphEngine;
  } = {},
): Promise<ContentTestSite> {
  // Load shedding watches the event loop, which parallel test files on a small machine delay.
  const platform = await startTestPlatform({
    clock: options.clock,
    env: {
      LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      LOAD_SHED_MAX_HEAP_USED_BYTES: '0',
      LOAD_SHED_MAX_RSS_BYTES: '0',
      ...options.env,
    },
    logStream: options.logStream,
    engine: options.engine,
  });
  const ownerHeaders = { authorization: `Bearer ${platform.ownerKey}` };
  const created = await platform.app.inject({
    method: 'POST',
    url: '/api/sites',
    headers: ownerHeaders,
    payload: { name: 'Content test', slug: options.slug ?? 'content-test', starterKit: 'none' },
  });
  if (created.statusCode !== 201)
    throw new Error(`site creation failed: ${created.statusCode} ${created.body}`);
  const site = created.json() as { id: string; graphName: string };
  const graph = await platform.app.trellis.engine.openGraph(site.graphName);
  if (!graph) throw new Error('the site graph does not exist');
  const headers = { ...ownerHeaders, 'x-site-id': site.id };
  const request: ContentTestSite['request'] = (injectOptions) =>
    platform.app.inject({
      ...injectOptions,
      headers: { ...headers, ...(injectOptions.headers as Record<string, string> | undefined) },
    }) as Promise<LightMyRequestResponse>;
  return {
    platform,
    siteId: site.id,
    graph,
    headers,
    request,
    async createType(definition) {
      const response = await request({ method: 'POST', url: '/api/types', payload: definition });
      if (response.statusCode !== 201)
        throw new Error(`type creation failed: ${response.statusCode} ${response.body}`);
      return response.json();
    },
    close: () => platform.close(),
  };
}
