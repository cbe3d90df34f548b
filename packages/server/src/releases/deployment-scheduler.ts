import type { Deployment } from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { GraphEngine } from '../engines/port';
import { listSites, toSiteView } from '../platform/sites';
import { dueDeployments, upcomingDeployments } from './deployments';
import type { ReleasePublisher } from './release-publisher';

/** How many due deployments one tick takes live per site at most (the rest wait for the next tick). */
const DUE_PER_TICK = 100;
/** How many upcoming deployments per site one tick looks at (to build ahead and to time the next tick). */
const UPCOMING_PER_TICK = 200;
/** How often the soonest deployment's build ahead is checked against what it stands on (ms). */
const STALE_CHECK_MS = 10_000;

export interface DeploymentSchedulerOptions {
  engine: GraphEngine;
  platform: import('../engines/port').Graph;
  publisher: ReleasePublisher;
  /** The clock; tests pass a fixed one. */
  now: () => Date;
  log: FastifyBaseLogger;
  /** How often the queue is polled, in ms (a tick is also timed for the next validFrom). */
  intervalMs: number;
  /** Build future deployments ahead (default true). */
  prebuild?: boolean;
}

/** What one tick did. */
export interface TickResult {
  /** Due deployments found (and tried). */
  attempted: number;
  /** The ones that went live through this scheduler (a compare-and-set another process won is not among them). */
  fired: Deployment[];
}

/**
 * Takes future-dated deployments live at their validFrom. Every tick reads the due pending
 * deployments of every site from the graph (nothing is kept in memory, so a restarted server
 * re-arms from the stored queue) and hands each to the {@link ReleasePublisher}, which claims
 * it and goes live with a compare-and-set, so several servers on the same data take each live
 * exactly once. Besides polling every `intervalMs`, a tick is timed for the soonest upcoming
 * validFrom, and upcoming deployments are built ahead in the background so that their switch
 * is one pointer write. Each tick also puts pointers right (`reconcile`).
 */
export class DeploymentScheduler {
  private timer: NodeJS.Timeout | null = null;
  private nextTimer: NodeJS.Timeout | null = null;
  private running: Promise<TickResult> | null = null;
  private again = false;
  private stopped = false;
  private readonly prebuilds = new Set<Promise<void>>();
  private readonly prebuildingSites = new Set<string>();
  /** When the soonest build ahead was last checked for staleness, by deployment id. */
  private readonly staleChecks = new Map<string, number>();

  constructor(private readonly options: DeploymentSchedulerOptions) {}

  /** Takes the deployments due now live on every site. Never runs two ticks of this scheduler at once. */
  tick(): Promise<TickResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runTick().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.safeTick();
      }
    });
    return this.running;
  }

  /** Starts polling every `intervalMs` (the first tick right away). */
  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.safeTick(), this.options.intervalMs);
    this.timer.unref();
    void this.safeTick();
  }

  /** Stops polling and waits for a tick and the builds ahead in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.nextTimer) clearTimeout(this.nextTimer);
    this.timer = null;
    this.nextTimer = null;
    await this.running?.catch(() => undefined);
    await Promise.allSettled([...this.prebuilds]);
  }

  private async safeTick(): Promise<void> {
    try {
      await this.tick();
    } catch (error) {
      this.options.log.error({ err: error }, 'deployment scheduler tick failed');
    }
  }

  /** Times one tick for `at` when that is before the next poll. */
  private armFor(at: number): void {
    const delay = Math.max(0, at - this.options.now().getTime());
    if (delay >= this.options.intervalMs || this.stopped) return;
    if (this.nextTimer) clearTimeout(this.nextTimer);
    this.nextTimer = setTimeout(() => {
      this.nextTimer = null;
      void this.safeTick();
    }, delay);
    this.nextTimer.unref();
  }

  private async runTick(): Promise<TickResult> {
    const { engine, platform, publisher } = this.options;
    const result: TickResult = { attempted: 0, fired: [] };
    let soonest = Number.POSITIVE_INFINITY;
    for (const record of await listSites(platform)) {
      if (this.stopped) break;
      const site = toSiteView(record);
      const graph = await engine.openGraph(site.graphName);
      if (!graph) continue;
      await publisher.reconcile({ site, graph });
      const due = await dueDeployments(graph, { now: this.options.now(), limit: DUE_PER_TICK });
      // In validFrom order per environment; when another process holds one, it takes the rest
      // of that environment too, so deployments of one environment never go live out of order.
      const heldEnvs = new Set<string>();
      for (const candidate of due) {
        if (heldEnvs.has(candidate.environmentId)) continue;
        result.attempted += 1;
        const { deployment, handled } = await publisher.deploy({ site, graph, deploymentId: candidate.id });
        if (!handled) heldEnvs.add(candidate.environmentId);
        else if (deployment.status === 'deployed') result.fired.push(deployment);
      }
      const upcoming = await upcomingDeployments(graph, {
        now: this.options.now(),
        limit: UPCOMING_PER_TICK,
      });
      const first = upcoming[0];
      if (first) soonest = Math.min(soonest, Date.parse(first.deployment.validFrom));
      // The soonest build ahead is checked against what it stands on now and then.
      if (first && typeof first.node.props.prebuiltBuildId === 'string' && this.options.prebuild !== false) {
        const checked = this.staleChecks.get(first.deployment.id) ?? 0;
        if (Date.now() - checked >= STALE_CHECK_MS) {
          if (this.staleChecks.size > 1000) this.staleChecks.clear();
          this.staleChecks.set(first.deployment.id, Date.now());
          if (await publisher.refreshIfStale({ site, graph, deployment: first.deployment }))
            delete first.node.props.prebuiltBuildId;
        }
      }
      // One build ahead at a time per site, soonest first; when it ends the next tick starts the next.
      const next = upcoming.find(
        ({ node }) => typeof node.props.prebuiltBuildId !== 'string' && typeof node.props.error !== 'string',
      );
      if (this.options.prebuild !== false && next && !this.prebuildingSites.has(site.id)) {
        this.prebuildingSites.add(site.id);
        const task = publisher
          .prebuild({ site, graph, deployment: next.deployment })
          .catch((error: unknown) =>
            this.options.log.error({ err: error, deploymentId: next.deployment.id }, 'prebuild failed'),
          )
          .finally(() => {
            this.prebuildingSites.delete(site.id);
            if (!this.stopped) void this.safeTick();
          });
        this.prebuilds.add(task);
        void task.finally(() => this.prebuilds.delete(task));
      }
    }
    if (Number.isFinite(soonest)) this.armFor(soonest);
    return result;
  }
}
