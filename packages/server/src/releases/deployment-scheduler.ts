import type { Deployment } from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Graph, GraphEngine } from '../engines/port';
import { listSites, type SiteView, toSiteView } from '../platform/sites';
import { dueDeployments, fireDeployment } from './deployments';

/** How many due deployments one tick fires per site at most (the rest wait for the next tick). */
const DUE_PER_TICK = 100;

export interface DeploymentSchedulerOptions {
  engine: GraphEngine;
  platform: Graph;
  /** The clock; tests pass a fixed one. */
  now: () => Date;
  log: FastifyBaseLogger;
  /** How often the queue is polled, in ms. */
  intervalMs: number;
  /** Called after a deployment was fired (e.g. to start an autoBuild). */
  onFired?: (input: { site: SiteView; graph: Graph; deployment: Deployment }) => void | Promise<void>;
}

/** What one tick did. */
export interface TickResult {
  /** Due deployments found (and tried). */
  attempted: number;
  /** The ones this scheduler fired (a compare-and-set another scheduler won is not among them). */
  fired: Deployment[];
}

/**
 * Fires future-dated deployments at their validFrom. Every tick reads the due pending
 * deployments of every site from the graph (nothing is kept in memory, so a restarted
 * server re-arms from the stored queue) and fires each with a compare-and-set on its
 * status inside a transaction, so several servers on the same data fire each exactly once.
 */
export class DeploymentScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<TickResult> | null = null;

  constructor(private readonly options: DeploymentSchedulerOptions) {}

  /** Fires the deployments due now on every site. Never runs two ticks of this scheduler at once. */
  tick(): Promise<TickResult> {
    if (this.running) return this.running;
    this.running = this.runTick().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Starts polling every `intervalMs` (the first tick right away). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.safeTick(), this.options.intervalMs);
    this.timer.unref();
    void this.safeTick();
  }

  /** Stops polling and waits for a tick in flight. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private async safeTick(): Promise<void> {
    try {
      await this.tick();
    } catch (error) {
      this.options.log.error({ err: error }, 'deployment scheduler tick failed');
    }
  }

  private async runTick(): Promise<TickResult> {
    const { engine, platform } = this.options;
    const result: TickResult = { attempted: 0, fired: [] };
    for (const record of await listSites(platform)) {
      const site = toSiteView(record);
      const graph = await engine.openGraph(site.graphName);
      if (!graph) continue;
      const due = await dueDeployments(graph, { now: this.options.now(), limit: DUE_PER_TICK });
      for (const candidate of due) {
        result.attempted += 1;
        const fired = await fireDeployment({ graph, id: candidate.id, now: this.options.now() });
        if (!fired) continue;
        result.fired.push(fired);
        this.options.log.info(
          { siteId: site.id, envId: fired.environmentId, deploymentId: fired.id, releaseId: fired.releaseId },
          'deployment fired',
        );
        await this.options.onFired?.({ site, graph, deployment: fired });
      }
    }
    return result;
  }
}
