import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Graph } from '../../engines/port';
import { listSites, type SiteView, toSiteView } from '../../platform/sites';
import { DeploymentScheduler } from '../../releases/deployment-scheduler';
import { listLiveHeads } from '../../releases/live-state';
import { ReleasePublisher } from '../../releases/release-publisher';
import { unboundedGraph } from '../../shared/deadline-graph';

/** How often the scheduler polls for due deployments (it also times a tick for the next validFrom). */
export const SCHEDULER_INTERVAL_MS = 1000;

/** What the release routes share: the clock, the publisher, the scheduler. */
export interface ReleasesContext {
  /** The clock every release rule reads; tests replace it. */
  now: () => Date;
  /** Builds, takes live and rolls back deployments. */
  publisher: ReleasePublisher;
  /** The deployment scheduler, or null when CMS_SCHEDULER is off. */
  scheduler: DeploymentScheduler | null;
  /**
   * Takes a due deployment live in the background (an `async` deploy or a retry): the
   * request answers at once; closing the app waits for it.
   */
  deployInBackground(input: { site: SiteView; graph: Graph; deploymentId: string; actor: string }): void;
  /** Asks the scheduler to look at the queue now (a deployment was scheduled): builds ahead and timers. */
  poke(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    releases: ReleasesContext;
  }
}

/**
 * Owns the release clock, the release publisher and the deployment scheduler: started when
 * the app is ready (unless CMS_SCHEDULER is false), stopped when it closes. On start every
 * environment's pointer is put where the graph says (a process may have stopped between
 * recording a switch and making it), and health's last build is read back from the graph.
 */
export const releasesPlugin = fp(
  async (app: FastifyInstance) => {
    const log = app.log.child({ component: 'releases' });
    const background = new Set<Promise<unknown>>();
    // The release clock (tests replace `now`), read through the context so a replacement applies.
    const clock = { now: () => context.now() };
    const publisher = new ReleasePublisher({
      builds: app.builds,
      log,
      clock,
      leaseMs: app.trellis.config.CMS_DEPLOY_LEASE_MS,
      events: app.events.bus,
      instanceId: app.trellis.instanceId,
      onSwitched: (live) => {
        app.trellis.lastBuild = { id: live.buildId, at: live.at };
      },
    });
    const context: ReleasesContext = {
      now: () => app.trellis.clock.now(),
      publisher,
      scheduler: null,
      deployInBackground({ site, graph, deploymentId, actor }) {
        // it outlives the request: not bounded by the request's query budget
        const task = publisher
          .deploy({ site, graph: unboundedGraph(graph), deploymentId, actor })
          .catch((error: unknown) => log.error({ err: error, deploymentId }, 'deployment failed to run'));
        background.add(task);
        void task.finally(() => background.delete(task));
      },
      poke() {
        void context.scheduler?.tick().catch(() => undefined);
      },
    };
    app.decorate('releases', context);
    if (app.trellis.config.CMS_SCHEDULER) {
      context.scheduler = new DeploymentScheduler({
        engine: app.trellis.engine,
        platform: app.trellis.platform,
        publisher,
        now: () => context.now(),
        log: app.log.child({ component: 'scheduler' }),
        intervalMs: SCHEDULER_INTERVAL_MS,
      });
    }
    app.addHook('onReady', async () => {
      let latest: { id: string; at: string } | null = null;
      for (const site of (await listSites(app.trellis.platform)).map(toSiteView)) {
        const graph = await app.trellis.engine.openGraph(site.graphName);
        if (!graph) continue;
        await publisher.reconcile({ site, graph });
        for (const head of await listLiveHeads(graph)) {
          if (head.buildId && head.switchedAt && (!latest || head.switchedAt > latest.at))
            latest = { id: head.buildId, at: head.switchedAt };
        }
      }
      if (latest && (!app.trellis.lastBuild || latest.at > app.trellis.lastBuild.at))
        app.trellis.lastBuild = latest;
      context.scheduler?.start();
    });
    app.addHook('preClose', async () => {
      await context.scheduler?.stop();
      await Promise.allSettled([...background]);
    });
  },
  { name: 'trellis-releases', dependencies: ['trellis-context', 'trellis-events', 'trellis-publishing'] },
);
