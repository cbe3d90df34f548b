import type { Deployment, Environment } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Graph } from '../../engines/port';
import { getSite, type SiteView, toSiteView } from '../../platform/sites';
import { envName } from '../../publishing/build-service';
import { DeploymentScheduler } from '../../releases/deployment-scheduler';
import { getEnvironment } from '../../releases/environments';

/** How often the scheduler polls for due deployments. */
export const SCHEDULER_INTERVAL_MS = 1000;

/** What the release routes share: the clock, the scheduler, and what happens when a deployment goes live. */
export interface ReleasesContext {
  /** The clock every release rule reads; tests replace it. */
  now: () => Date;
  /** The deployment scheduler, or null when CMS_SCHEDULER is off. */
  scheduler: DeploymentScheduler | null;
  /**
   * Called when a deployment went live: when its environment has `autoBuild`, starts an
   * async build of that environment (the build renders the site's current content).
   */
  onLive(input: {
    siteId: string;
    graph: Graph;
    deployment: Deployment;
    environment?: Environment;
  }): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    releases: ReleasesContext;
  }
}

/**
 * Owns the release clock and the deployment scheduler: started when the app is ready (unless
 * CMS_SCHEDULER is false), stopped when it closes.
 */
export const releasesPlugin = fp(
  async (app: FastifyInstance) => {
    const log = app.log.child({ component: 'scheduler' });
    const context: ReleasesContext = {
      now: () => app.trellis.clock.now(),
      scheduler: null,
      async onLive({ siteId, graph, deployment, environment }) {
        const env = environment ?? (await getEnvironment(graph, deployment.environmentId));
        if (!env.autoBuild || !app.hasDecorator('builds')) return;
        const record = await getSite(app.trellis.platform, siteId);
        if (!record) return;
        const site: SiteView = toSiteView(record);
        const started = await app.builds.start({
          site,
          graph,
          env: envName(env.id),
          mode: 'incremental',
          actor: 'system',
          serveCheckUrl: null,
        });
        log.info(
          { siteId, envId: env.id, deploymentId: deployment.id, buildId: started.buildId },
          'autoBuild started',
        );
      },
    };
    app.decorate('releases', context);
    if (app.trellis.config.CMS_SCHEDULER) {
      context.scheduler = new DeploymentScheduler({
        engine: app.trellis.engine,
        platform: app.trellis.platform,
        now: () => context.now(),
        log,
        intervalMs: SCHEDULER_INTERVAL_MS,
        onFired: async ({ site, graph, deployment }) => {
          try {
            await context.onLive({ siteId: site.id, graph, deployment });
          } catch (error) {
            log.error(
              { err: error, deploymentId: deployment.id },
              'autoBuild after a fired deployment failed',
            );
          }
        },
      });
    }
    app.addHook('onReady', async () => {
      context.scheduler?.start();
    });
    app.addHook('preClose', async () => {
      await context.scheduler?.stop();
    });
  },
  { name: 'trellis-releases', dependencies: ['trellis-context'] },
);
