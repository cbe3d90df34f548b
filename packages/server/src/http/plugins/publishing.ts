import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { listSites, toSiteView } from '../../platform/sites';
import { BuildService } from '../../publishing/build-service';
import { relinkSiteFolders } from '../../publishing/site-folders';
import { runAfterBuildHooks } from '../../scripts/after-build';
import { ownOrigin } from '../own-origin';

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs, queues and records builds; serves their deploys. */
    builds: BuildService;
  }
}

/**
 * Owns the build service: the render worker pools and the deploy folders under
 * `CMS_DATA_DIR/sites/` (or the bucket, with CMS_STORAGE=s3). On start it marks builds a previous process left `running` as
 * `error`; on close it waits for builds in flight.
 */
export const publishingPlugin = fp(
  async (app: FastifyInstance) => {
    const dataDir = resolve(app.trellis.config.CMS_DATA_DIR);
    mkdirSync(resolve(dataDir, 'sites'), { recursive: true });
    const service = new BuildService({
      dataDir,
      log: app.log.child({ component: 'build' }),
      clock: app.trellis.clock,
      transformBudgetMs: app.trellis.config.TRANSFORM_BUDGET_MS,
      outbound: app.trellis.outbound,
      events: app.events.bus,
      afterBuild: ({ graph, site, actor, build }) =>
        runAfterBuildHooks({
          graph,
          host: app.scripts,
          site: { id: site.id, name: site.name, publicUrl: site.publicUrl },
          actor,
          build,
        }),
      ownOrigin: () => ownOrigin(app),
      auditHead: (graphName, graph) => app.trellis.auditAnchors.headAnchor(graphName, graph),
      retention: app.trellis.config.CMS_BUILD_RETENTION,
      objectStore: app.trellis.objectStore,
      instanceId: app.trellis.instanceId,
      leaseMs: app.trellis.config.CMS_BUILD_LEASE_MS,
      // Health's last build is the last one switched in (a build ahead or a preview is not live).
      onSwitched: (live) => {
        app.trellis.lastBuild = { id: live.buildId, at: live.at };
      },
    });
    app.decorate('builds', service);
    await app.register(fastifyStatic, { root: resolve(dataDir, 'sites'), serve: false });

    app.addHook('onReady', async () => {
      const sites = await listSites(app.trellis.platform);
      // With CMS_STORAGE=s3 the sites are in the bucket: there are no folders to link.
      if (!app.trellis.objectStore) {
        try {
          relinkSiteFolders(dataDir, sites.map(toSiteView));
        } catch (error) {
          app.log.warn({ err: error }, 'could not link site folders by slug (sites/by-slug/)');
        }
      }
      for (const site of sites.map(toSiteView)) {
        const graph = await app.trellis.engine.openGraph(site.graphName);
        if (!graph) continue;
        // Anchors the chains of graphs written before anchoring, in the background.
        app.trellis.auditAnchors.advance(site.graphName);
        const count = await service.recoverInterrupted(graph);
        if (count > 0) app.log.warn({ siteId: site.id, count }, 'marked interrupted builds as error');
      }
    });
    app.addHook('onClose', async () => {
      await service.close();
    });
  },
  { name: 'trellis-publishing', dependencies: ['trellis-context', 'trellis-events', 'trellis-scripts'] },
);
