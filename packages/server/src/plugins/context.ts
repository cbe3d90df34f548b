import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiKeyCache } from '../auth/api-key-cache';
import type { Config } from '../config';
import type { Graph, GraphEngine } from '../engines/port';
import type { ApiKeyRecord } from '../platform/api-keys';

/** The name of the platform graph (sites, users, members, API keys). */
export const PLATFORM_GRAPH = 'platform';

/** What every route needs: the configuration, the engine and the platform graph. */
export interface TrellisContext {
  config: Config;
  engine: GraphEngine;
  platform: Graph;
  platformGraphName: string;
  version: string;
  lastBuild: { id: string; at: string } | null;
  /** The API-key cache (auth/api-key-cache.ts); its counters appear on /health/detail. */
  apiKeyCache: ApiKeyCache<ApiKeyRecord>;
}

declare module 'fastify' {
  interface FastifyInstance {
    trellis: TrellisContext;
  }
}

/**
 * Owns the engine: initialises it, opens (or creates) the platform graph, and closes the
 * engine when the app closes.
 */
export const contextPlugin = fp(
  async (app: FastifyInstance, opts: { config: Config; engine: GraphEngine; version: string }) => {
    const { engine, config } = opts;
    await engine.init();
    const platform = (await engine.openGraph(PLATFORM_GRAPH)) ?? (await engine.createGraph(PLATFORM_GRAPH));
    app.decorate('trellis', {
      config,
      engine,
      platform,
      platformGraphName: PLATFORM_GRAPH,
      version: opts.version,
      lastBuild: null,
      apiKeyCache: new ApiKeyCache<ApiKeyRecord>(),
    } satisfies TrellisContext);
    app.addHook('onClose', async () => {
      await engine.close();
    });
  },
  { name: 'trellis-context' },
);
