import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AccessEpochWatch, readAccessEpoch } from '../../auth/access-epoch';
import { ApiKeyCache } from '../../auth/api-key-cache';
import { PlatformAccessCache } from '../../auth/platform-access-cache';
import type { Config } from '../../config';
import { createEmbeddingProvider } from '../../content/embeddings/create-provider';
import type { EmbeddingProvider } from '../../content/embeddings/provider';
import { ItemReadCache } from '../../content/item-read-cache';
import { AuditAnchors } from '../../diagnostics/audit-anchors';
import type { Graph, GraphEngine } from '../../engines/port';
import { loadAuditKey } from '../../engines/shared/audit-key';
import { migrateSiteGraphs } from '../../migrations/site-migrations';
import type { ApiKeyRecord } from '../../platform/api-keys';
import { PLATFORM_GRAPH } from '../../platform/platform-graph';
import type { Clock } from '../../shared/clock';
import { makeInstanceId } from '../../shared/instance-id';
import { assertBucketReachable, type ObjectStore, objectStoreFrom } from '../../shared/object-store';
import { createGuardedFetch, type GuardedFetch } from '../../shared/outbound/guarded-fetch';
import { writeNotifyingEngine } from './write-notifying-graph';

/** What every route needs: the configuration, the engine and the platform graph. */
export interface TrellisContext {
  config: Config;
  engine: GraphEngine;
  platform: Graph;
  platformGraphName: string;
  version: string;
  /** Where every timestamp the server stores or compares comes from (shared/clock.ts). */
  clock: Clock;
  lastBuild: { id: string; at: string } | null;
  /** This server among those sharing the platform (`CMS_INSTANCE_ID`, else hostname:pid:random); GET /api/health shows it. */
  instanceId: string;
  /**
   * The cross-instance invalidation signal (auth/access-epoch.ts): the auth hook waits for
   * its check before using the caches; when the epoch moved the access and API-key caches are dropped.
   */
  accessEpoch: AccessEpochWatch;
  /** The API-key cache (auth/api-key-cache.ts); its counters appear on /health/detail. */
  apiKeyCache: ApiKeyCache<ApiKeyRecord>;
  /**
   * The user, site and membership reads of the auth hook (auth/platform-access-cache.ts),
   * emptied around every write to the platform graph; entries live `ACCESS_CACHE_MS`.
   */
  accessCache: PlatformAccessCache;
  /**
   * The answers of GET one item and of content lists (content/item-read-cache.ts), retired around every write to
   * their graph; entries live `CONTENT_READ_CACHE_MS`.
   */
  itemReadCache: ItemReadCache;
  /**
   * The only way the server makes outbound HTTP requests (shared/outbound/guarded-fetch.ts):
   * destinations checked on every hop against `CMS_OUTBOUND_ALLOW`, bounded in time and size.
   */
  outbound: GuardedFetch;
  /**
   * The heads of the audit chains, kept outside the graphs (diagnostics/audit-anchors.ts):
   * raised after every write, checked by `GET /api/audit/verify`.
   */
  auditAnchors: AuditAnchors;
  /**
   * Turns item text into vectors for `{% similar %}` and vector search (content/embeddings):
   * OpenAI-compatible when EMBEDDINGS_URL is set, else the offline hashed bag of words.
   */
  embeddings: EmbeddingProvider;
  /**
   * The S3-compatible bucket media files and published sites are kept in (`CMS_STORAGE=s3`,
   * shared/object-store.ts), or null: they are kept under CMS_DATA_DIR.
   */
  objectStore: ObjectStore | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    trellis: TrellisContext;
  }
}

/**
 * Owns the engine: initialises it, opens (or creates) the platform graph, runs the data
 * migrations of the site graphs (migrations/site-migrations.ts), and closes the
 * engine when the app closes. `trellis.engine` wraps the given engine so that every write to
 * a graph opened through it retires the caches of that graph (the access cache for the
 * platform graph, the item read cache for site graphs): the app must reach graphs only
 * through `trellis.engine` and `trellis.platform`, never through the engine it was given.
 */
export const contextPlugin = fp(
  async (
    app: FastifyInstance,
    opts: { config: Config; engine: GraphEngine; version: string; clock: Clock },
  ) => {
    const { config } = opts;
    const objectStore = await objectStoreFrom(config);
    // A missing bucket stops the start here, with a message saying so.
    if (objectStore) await assertBucketReachable(objectStore);
    const accessCache = new PlatformAccessCache({ ttlMs: config.ACCESS_CACHE_MS, clock: opts.clock });
    const itemReadCache = new ItemReadCache({ ttlMs: config.CONTENT_READ_CACHE_MS });
    let auditAnchors: AuditAnchors | null = null;
    const engine = writeNotifyingEngine(opts.engine, (graphName, phase) => {
      if (graphName === PLATFORM_GRAPH) accessCache.invalidateAll();
      else itemReadCache.graphWritten(graphName);
      if (phase === 'end') auditAnchors?.advance(graphName);
    });
    await engine.init();
    const platform = (await engine.openGraph(PLATFORM_GRAPH)) ?? (await engine.createGraph(PLATFORM_GRAPH));
    // Data written by an earlier version is brought up to date before the first request.
    for (const migrated of await migrateSiteGraphs({ engine, platform, clock: opts.clock })) {
      app.log.info(migrated, 'migrated the data of a site graph');
    }
    // Anchors are written through the engine itself: no cache holds them.
    const rawPlatform = (await opts.engine.openGraph(PLATFORM_GRAPH)) as Graph;
    auditAnchors = new AuditAnchors({
      key: loadAuditKey({ envKey: config.CMS_AUDIT_KEY, dataDir: config.CMS_DATA_DIR }),
      engine: opts.engine,
      platform: rawPlatform,
      platformGraphName: PLATFORM_GRAPH,
      dataDir: resolve(config.CMS_DATA_DIR),
      log: app.log.child({ component: 'audit-anchors' }),
    });
    auditAnchors.advance(PLATFORM_GRAPH);
    const outbound = createGuardedFetch({
      policy: { allow: config.CMS_OUTBOUND_ALLOW },
      timeoutMs: config.CMS_OUTBOUND_TIMEOUT_MS,
      maxResponseBytes: config.CMS_OUTBOUND_MAX_BYTES,
    });
    const apiKeyCache = new ApiKeyCache<ApiKeyRecord>();
    // Read through the platform graph the engine gave (a read: no cache notification).
    const accessEpoch = new AccessEpochWatch(
      () => readAccessEpoch(platform),
      () => {
        accessCache.invalidateAll();
        apiKeyCache.clear();
      },
      config.ACCESS_EPOCH_CHECK,
      // The engine's own graph object: the marker is a read of the file, not a graph call.
      rawPlatform.commitMarker ? () => rawPlatform.commitMarker?.() ?? null : undefined,
    );
    app.decorate('trellis', {
      config,
      engine,
      platform,
      platformGraphName: PLATFORM_GRAPH,
      version: opts.version,
      clock: opts.clock,
      lastBuild: null,
      instanceId: makeInstanceId(config.CMS_INSTANCE_ID),
      accessEpoch,
      apiKeyCache,
      accessCache,
      itemReadCache,
      outbound,
      auditAnchors,
      embeddings: createEmbeddingProvider(config, outbound),
      objectStore,
    } satisfies TrellisContext);
    app.addHook('onClose', async () => {
      await auditAnchors?.settle();
      await engine.close();
      objectStore?.client.destroy();
    });
  },
  { name: 'trellis-context' },
);
