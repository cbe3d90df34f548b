import type { Deployment, LiveEntry } from '@trelliscms/core';
import { TrellisError } from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Graph } from '../engines/port';
import type { EventSink } from '../events/event-bus';
import type { SiteView } from '../platform/sites';
import { type BuildService, envName } from '../publishing/build-service';
import type { Clock } from '../shared/clock';
import { makeInstanceId } from '../shared/instance-id';
import {
  claimDeployment,
  commitRollback,
  failDeployment,
  getDeployment,
  goLive,
  liveStateAt,
  planRollback,
  recordPrebuild,
  releaseClaim,
  withRelease,
} from './deployments';
import { listLiveHeads, readLive } from './live-state';
import { getRelease } from './releases';

/** How long a claim on a deployment holds before another process may take it over (renewed while building), unless CMS_DEPLOY_LEASE_MS says otherwise. */
export const DEFAULT_LEASE_MS = 60_000;

export interface ReleasePublisherOptions {
  builds: BuildService;
  log: FastifyBaseLogger;
  clock: Clock;
  /** Called when an environment's pointer was switched (health's last build). */
  onSwitched?: (live: { buildId: string; at: string }) => void;
  /** How long a claim on a deployment holds, in ms (renewed every third of it while building). Default 60000. */
  leaseMs?: number;
  /** Where `deployment.live`, `deployment.failed` and `deployment.rolled_back` go. */
  events?: EventSink;
  /** Who claims deployments (`CMS_INSTANCE_ID`); default: a fresh id for this process. */
  instanceId?: string;
}

/**
 * Makes deployments real: builds what a deployment will serve (the environment's live state
 * with its release applied), records it live in the graph with a compare-and-set, then
 * switches the environment's pointer to that build (docs/releases.md). Future deployments are
 * built ahead (`prebuild`) so that at their time the switch is one pointer write; a rollback
 * switches back to the older deployment's build without rendering.
 *
 * The graph is written first and the pointer second, so the graph is the truth: a process
 * stopping between the two is put right by {@link reconcile} (on start and on every scheduler
 * tick). A deployment being built is claimed (a lease renewed while the build runs); a process
 * killed during the build leaves its claim to expire, and the deployment is due again.
 */
export class ReleasePublisher {
  /** Who claims deployments: this process. */
  readonly instanceId: string;
  private readonly prebuilding = new Set<string>();
  /** How long its claims on deployments hold, in ms (CMS_DEPLOY_LEASE_MS). */
  readonly leaseMs: number;

  constructor(private readonly options: ReleasePublisherOptions) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.instanceId = options.instanceId ?? makeInstanceId();
  }

  private now(): Date {
    return this.options.clock.now();
  }

  /** Tells the event stream about a deployment; `scheduled` when it was dated later than it was made. */
  private emitDeployment(
    site: SiteView,
    type: 'deployment.live' | 'deployment.failed' | 'deployment.rolled_back',
    deployment: Deployment,
    extra: Record<string, unknown>,
  ): void {
    this.options.events?.emit({
      type,
      siteId: site.id,
      data: {
        deploymentId: deployment.id,
        releaseId: deployment.releaseId,
        environmentId: deployment.environmentId,
        validFrom: deployment.validFrom,
        status: deployment.status,
        buildId: deployment.buildId,
        createdBy: deployment.createdBy,
        scheduled:
          Date.parse(deployment.validFrom) > Date.parse(deployment.createdAt ?? deployment.validFrom),
        ...extra,
      },
    });
  }

  /**
   * Takes a due pending deployment live: claims it, uses its build made ahead when what it
   * stands on has not changed since (a fingerprint of the snapshot), else builds now; then goes
   * live and switches. A failed build marks it `failed` (the old site stays live). Returns the
   * deployment as it ends, and whether this call ended it (`false` when another process holds
   * it or took it live first: the deployment is then as that process left it).
   */
  async deploy({
    site,
    graph,
    deploymentId,
    actor = 'system',
  }: {
    site: SiteView;
    graph: Graph;
    deploymentId: string;
    actor?: string;
  }): Promise<{ deployment: Deployment; handled: boolean }> {
    const started = performance.now();
    const claimed = await claimDeployment({
      graph,
      id: deploymentId,
      by: this.instanceId,
      now: this.now(),
      leaseMs: this.leaseMs,
    });
    const other = async () => ({ deployment: await getDeployment(graph, deploymentId), handled: false });
    if (!claimed) return other();
    const renew = setInterval(() => {
      void claimDeployment({
        graph,
        id: deploymentId,
        by: this.instanceId,
        now: this.now(),
        leaseMs: this.leaseMs,
      }).catch(() => undefined);
    }, this.leaseMs / 3);
    renew.unref();
    const env = envName(claimed.environmentId);
    const logFields = {
      siteId: site.id,
      envId: claimed.environmentId,
      releaseId: claimed.releaseId,
      deploymentId,
    };
    try {
      const release = await getRelease(graph, claimed.releaseId);
      const live = withRelease(
        await readLive(graph, claimed.environmentId),
        release,
        this.now(),
        deploymentId,
      );
      let buildId = await this.freshPrebuild({ site, graph, env, deploymentId, live });
      const prebuilt = buildId !== null;
      if (!buildId) {
        const result = await this.options.builds.runSync({
          site,
          graph,
          env,
          mode: 'incremental',
          actor,
          serveCheckUrl: null,
          purpose: 'deployment',
          live,
          deploymentId,
        });
        if (!result.ok || !result.deploy) {
          const error = `build ${result.buildId} failed: ${result.error ?? 'no deploy'}`;
          const failed = await failDeployment({
            graph,
            id: deploymentId,
            error,
            now: this.now(),
            buildId: result.buildId,
          });
          this.options.log.error({ ...logFields, buildId: result.buildId, error }, 'deployment failed');
          if (failed) this.emitDeployment(site, 'deployment.failed', failed, { error });
          return failed ? { deployment: failed, handled: true } : other();
        }
        buildId = result.buildId;
      }
      const servedBuild = buildId;
      const outcome = await this.options.builds.exclusive(site.graphName, env, async () => {
        const won = await goLive({
          graph,
          id: deploymentId,
          buildId: servedBuild,
          by: this.instanceId,
          now: this.now(),
          actor,
        });
        if (won) await this.options.builds.activate(site.graphName, env, servedBuild, { inQueue: true });
        return won;
      });
      if (!outcome) return other();
      const at = this.now();
      this.options.onSwitched?.({ buildId: servedBuild, at: at.toISOString() });
      this.options.log.info(
        {
          ...logFields,
          buildId: servedBuild,
          prebuilt,
          latenessMs: Math.max(0, at.getTime() - Date.parse(claimed.validFrom)),
          tookMs: Math.round(performance.now() - started),
        },
        'deployment live',
      );
      this.emitDeployment(site, 'deployment.live', outcome.deployment, { prebuilt });
      return { deployment: outcome.deployment, handled: true };
    } catch (error) {
      await releaseClaim(graph, deploymentId, this.instanceId).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(renew);
    }
  }

  /** The build made ahead for the deployment, when it is still what the site would be built from; else null. */
  private async freshPrebuild({
    site,
    graph,
    env,
    deploymentId,
    live,
  }: {
    site: SiteView;
    graph: Graph;
    env: string;
    deploymentId: string;
    live: ReadonlyMap<string, LiveEntry>;
  }): Promise<string | null> {
    const node = await graph.getNode(deploymentId);
    const buildId = node?.props.prebuiltBuildId;
    const fingerprint = node?.props.prebuildFingerprint;
    if (typeof buildId !== 'string' || typeof fingerprint !== 'string') return null;
    if (!(await this.options.builds.hasVersion(site.graphName, env, buildId))) return null;
    const now = await this.options.builds.fingerprint({ site, graph, env, live });
    if (now !== fingerprint) {
      this.options.log.info(
        { siteId: site.id, deploymentId, buildId },
        'prebuilt version is stale (what it stands on changed); building now',
      );
      return null;
    }
    return buildId;
  }

  /**
   * Builds a future deployment ahead, into a version that is not live: the environment as it
   * will be at its validFrom (the live state with every pending deployment due by then
   * applied). Skipped while one is being built for it in this process.
   */
  async prebuild({
    site,
    graph,
    deployment,
  }: {
    site: SiteView;
    graph: Graph;
    deployment: Deployment;
  }): Promise<void> {
    if (this.prebuilding.has(deployment.id)) return;
    this.prebuilding.add(deployment.id);
    try {
      const env = envName(deployment.environmentId);
      const { live } = await liveStateAt(graph, {
        envId: deployment.environmentId,
        at: new Date(deployment.validFrom),
        now: this.now(),
      });
      const result = await this.options.builds.runSync({
        site,
        graph,
        env,
        mode: 'incremental',
        actor: 'system',
        serveCheckUrl: null,
        purpose: 'prebuild',
        live,
        deploymentId: deployment.id,
      });
      const ok = result.ok && result.deploy !== null && result.fingerprint !== undefined;
      await recordPrebuild({
        graph,
        id: deployment.id,
        buildId: ok ? result.buildId : null,
        fingerprint: ok ? (result.fingerprint ?? null) : null,
        error: ok ? null : `prebuild ${result.buildId} failed: ${result.error ?? 'no deploy'}`,
      });
      this.options.log.info(
        {
          siteId: site.id,
          envId: deployment.environmentId,
          releaseId: deployment.releaseId,
          deploymentId: deployment.id,
          buildId: result.buildId,
          ok,
        },
        ok ? 'deployment prebuilt' : 'deployment prebuild failed',
      );
    } finally {
      this.prebuilding.delete(deployment.id);
    }
  }

  /**
   * Checks that a future deployment's build made ahead still stands on what the site will be
   * built from at its validFrom (the fingerprint); when it does not (an item was published, a
   * template edited, another deployment scheduled before it), forgets it so that it is built
   * ahead again. Returns true when it was stale.
   */
  async refreshIfStale({
    site,
    graph,
    deployment,
  }: {
    site: SiteView;
    graph: Graph;
    deployment: Deployment;
  }): Promise<boolean> {
    if (this.prebuilding.has(deployment.id)) return false;
    const node = await graph.getNode(deployment.id);
    const fingerprint = node?.props.prebuildFingerprint;
    if (node?.props.status !== 'pending' || typeof fingerprint !== 'string') return false;
    const { live } = await liveStateAt(graph, {
      envId: deployment.environmentId,
      at: new Date(deployment.validFrom),
      now: this.now(),
    });
    const env = envName(deployment.environmentId);
    if ((await this.options.builds.fingerprint({ site, graph, env, live })) === fingerprint) return false;
    await recordPrebuild({ graph, id: deployment.id, buildId: null, fingerprint: null });
    this.options.log.info(
      { siteId: site.id, envId: deployment.environmentId, deploymentId: deployment.id },
      'what a scheduled deployment stands on changed; building it ahead again',
    );
    return true;
  }

  /**
   * Rolls a deployment back to an older release of the same environment: switches the
   * pointer to the build that served the older release's latest deployment (no render; a
   * build is made only when that version is gone) and restores the live state as it was
   * then, in one transaction with one audit entry.
   */
  async rollback({
    site,
    graph,
    deploymentId,
    rollbackToReleaseId,
    actor,
  }: {
    site: SiteView;
    graph: Graph;
    deploymentId: string;
    rollbackToReleaseId: string;
    actor: string;
  }): Promise<Deployment> {
    const started = performance.now();
    const plan = await planRollback(graph, { deploymentId, rollbackToReleaseId });
    const env = envName(plan.current.environmentId);
    let buildId = plan.earlier.buildId ?? null;
    let rendered = false;
    if (!buildId || !(await this.options.builds.hasVersion(site.graphName, env, buildId))) {
      const result = await this.options.builds.runSync({
        site,
        graph,
        env,
        mode: 'incremental',
        actor,
        serveCheckUrl: null,
        purpose: 'deployment',
        live: plan.restored,
        deploymentId,
      });
      if (!result.ok || !result.deploy) {
        throw TrellisError.of('business_rule', {
          detail: `the build of ${plan.target.id} for the rollback failed (${result.error ?? 'no deploy'}); ${deploymentId} stays live`,
        });
      }
      buildId = result.buildId;
      rendered = true;
    }
    const servedBuild = buildId;
    const deployment = await this.options.builds.exclusive(site.graphName, env, async () => {
      const committed = await commitRollback({ graph, plan, buildId: servedBuild, actor, now: this.now() });
      await this.options.builds.activate(site.graphName, env, servedBuild, { inQueue: true });
      return committed;
    });
    this.options.onSwitched?.({ buildId: servedBuild, at: this.now().toISOString() });
    this.options.log.info(
      {
        siteId: site.id,
        envId: plan.current.environmentId,
        releaseId: plan.target.id,
        deploymentId: deployment.id,
        rolledBack: deploymentId,
        buildId: servedBuild,
        rendered,
        tookMs: Math.round(performance.now() - started),
      },
      'deployment rolled back',
    );
    this.emitDeployment(site, 'deployment.rolled_back', deployment, {
      rolledBack: deploymentId,
      rendered,
    });
    return deployment;
  }

  /**
   * Puts every environment's pointer where the graph says it belongs (the build its live head
   * names), for a process that stopped between recording a switch and making it. Environments
   * with a build running are left for later.
   */
  async reconcile({ site, graph }: { site: SiteView; graph: Graph }): Promise<number> {
    let fixed = 0;
    for (const head of await listLiveHeads(graph)) {
      if (!head.buildId) continue;
      const env = envName(head.envId);
      if (!this.options.builds.isIdle(site.graphName, env)) continue;
      if (!(await this.options.builds.hasVersion(site.graphName, env, head.buildId))) continue;
      const served = await this.options.builds.servedBuildId(site.graphName, env);
      if (served === head.buildId) continue;
      await this.options.builds.activate(site.graphName, env, head.buildId);
      this.options.log.warn(
        { siteId: site.id, envId: head.envId, buildId: head.buildId, was: served },
        'pointer switched to the build the graph records as live',
      );
      fixed += 1;
    }
    return fixed;
  }
}
