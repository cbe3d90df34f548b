import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  type BuildResult as BuilderResult,
  build,
  createDirectoryTarget,
  type DeployTarget,
  RenderPool,
  rollback,
} from '@trelliscms/builder';
import {
  type BuildMode,
  type BuildResult,
  type BuildStatus,
  sortableId,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import type { SiteView } from '../platform/sites';
import type { Clock } from '../shared/clock';
import { takeSnapshot } from './take-snapshot';

/** Node label of a recorded build (a BuildEvent, docs/api-spec.md §6) in the site graph, id `build:<buildId>`. */
export const BUILD_LABEL = 'Build';

/** `prod` or `env:prod` -> `prod`. */
export function envName(env: string | undefined): string {
  const name = env ?? 'dev';
  return name.startsWith('env:') ? name.slice(4) : name;
}

export function buildNodeId(buildId: string): string {
  return `build:${buildId}`;
}

/** Where a site environment's deploys live: `<dataDir>/sites/<graphName>/<env>/` (versions/, current). */
export function siteEnvRoot(dataDir: string, graphName: string, env: string): string {
  return join(dataDir, 'sites', graphName, env);
}

/** A stored build as the API shows it. */
export function toBuildStatus(node: GraphNode): BuildStatus {
  const props = node.props as Record<string, unknown>;
  return props as unknown as BuildStatus;
}

function newBuildId(now: Date): string {
  return sortableId('b', now, randomUUID().slice(0, 6));
}

export interface StartBuildInput {
  site: SiteView;
  graph: Graph;
  env: string;
  mode: BuildMode;
  actor: string;
  /** The URL the deployed pages are served at (probed after deploy), or null. */
  serveCheckUrl: string | null;
}

/**
 * Runs builds for the server: one at a time per site and environment (later ones queue), off
 * the request thread (the builder renders in worker threads with memory and time limits),
 * deployed to the directory target under CMS_DATA_DIR with an atomic pointer switch. A
 * non-validate build is recorded as a `Build` node whose `status` moves from `running` to
 * `ok` or `error`; validate builds are not recorded.
 */
export class BuildService {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly pools = new Map<string, RenderPool>();
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly options: {
      dataDir: string;
      log: FastifyBaseLogger;
      /** Stamps build ids, `startedAt` and `finishedAt`. */
      clock: Clock;
      onFinished?: (status: BuildStatus) => void;
    },
  ) {}

  target(graphName: string, env: string): DeployTarget {
    return createDirectoryTarget({ root: siteEnvRoot(this.options.dataDir, graphName, env) });
  }

  /** The folder a site environment's live pages are served from, or null before the first deploy. */
  liveDir(graphName: string, env: string): string | null {
    return this.target(graphName, env).liveDir();
  }

  /** Runs a build and resolves with its result when it ends. */
  async runSync(input: StartBuildInput): Promise<BuildResult> {
    const buildId = newBuildId(this.options.clock.now());
    if (input.mode === 'validate') return this.validate(input, buildId);
    await this.record(input, buildId);
    return this.enqueue(input, () => this.execute(input, buildId));
  }

  /** Starts a build and resolves at once with its id; the build runs in the background. */
  async start(input: StartBuildInput): Promise<{ buildId: string; envId: string }> {
    const buildId = newBuildId(this.options.clock.now());
    if (input.mode === 'validate') {
      throw TrellisError.of('validation_failed', {
        detail: 'a validate build (dryRun) runs synchronously; leave async off',
      });
    }
    await this.record(input, buildId);
    const task = this.enqueue(input, () => this.execute(input, buildId)).catch((error: unknown) => {
      this.options.log.error({ err: error, buildId }, 'async build failed');
    });
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
    return { buildId, envId: `env:${input.env}` };
  }

  /** Waits for builds in flight (graceful shutdown), then ends the render workers. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }

  async status(graph: GraphReader, buildId: string): Promise<BuildStatus> {
    const node = await graph.getNode(buildNodeId(buildId));
    if (!node?.labels.includes(BUILD_LABEL)) {
      throw TrellisError.of('not_found', { resource: `Build \`${buildId}\`` });
    }
    return toBuildStatus(node);
  }

  async history(graph: GraphReader, env: string | undefined, limit: number): Promise<BuildStatus[]> {
    const page = await graph.findNodes({
      label: BUILD_LABEL,
      where: env === undefined ? [] : [{ prop: 'envId', op: 'eq', value: `env:${envName(env)}` }],
      orderBy: [
        { prop: 'startedAt', direction: 'desc' },
        { prop: 'buildId', direction: 'desc' },
      ],
      limit,
    });
    return page.nodes.map(toBuildStatus);
  }

  /** Makes a prior build of the same environment live again (one pointer switch). */
  async rollback({
    graph,
    site,
    buildId,
    actor,
  }: {
    graph: Graph;
    site: SiteView;
    buildId: string;
    actor: string;
  }): Promise<{ ok: boolean; buildId: string; envId: string; rolledBackFrom: string | null }> {
    const status = await this.status(graph, buildId);
    if (status.status !== 'ok' || !status.deploy) {
      throw TrellisError.of('business_rule', {
        detail: `build ${buildId} did not deploy (status ${status.status}); only a deployed build can be made live again`,
      });
    }
    const env = envName(status.envId);
    const key = `${site.graphName}/${env}`;
    const result = await this.serialize(key, () =>
      rollback({ target: this.target(site.graphName, env), buildId }),
    );
    await graph.transaction(async (tx) => {
      await tx.appendAudit({
        actor,
        action: 'build.rollback',
        target: buildNodeId(buildId),
        data: { env, from: result.previousBuildId },
      });
    });
    return { ok: true, buildId, envId: status.envId, rolledBackFrom: result.previousBuildId };
  }

  /** Marks builds left `running` by a previous process as `error` (they cannot finish any more). */
  async recoverInterrupted(graph: Graph): Promise<number> {
    const page = await graph.findNodes({
      label: BUILD_LABEL,
      where: [{ prop: 'status', op: 'eq', value: 'running' }],
      limit: 1000,
    });
    if (page.nodes.length === 0) return 0;
    await graph.transaction(async (tx) => {
      for (const node of page.nodes) {
        await tx.updateNode(node.id, {
          props: {
            ...node.props,
            ok: false,
            status: 'error',
            error: 'interrupted: the server stopped before the build ended',
            finishedAt: this.options.clock.now().toISOString(),
          },
        });
        await tx.appendAudit({ actor: 'system', action: 'build.interrupted', target: node.id });
      }
    });
    return page.nodes.length;
  }

  private async validate(input: StartBuildInput, buildId: string): Promise<BuildResult> {
    const snapshot = await takeSnapshot({ graph: input.graph, site: input.site, clock: this.options.clock });
    const result = await build({ source: snapshot, env: input.env, mode: 'validate', buildId });
    return {
      ...this.toResult(result, input),
      dryRun: true,
      artifactPaths: result.files.map((file) => file.file),
    };
  }

  private async record(input: StartBuildInput, buildId: string): Promise<void> {
    const startedAt = this.options.clock.now().toISOString();
    await input.graph.transaction(async (tx) => {
      await tx.createNode({
        id: buildNodeId(buildId),
        labels: [BUILD_LABEL],
        props: {
          ok: true,
          buildId,
          envId: `env:${input.env}`,
          status: 'running',
          mode: input.mode,
          startedAt,
          finishedAt: null,
          requestedBy: input.actor,
        },
      });
      await tx.appendAudit({
        actor: input.actor,
        action: 'build.start',
        target: buildNodeId(buildId),
        data: { env: input.env, mode: input.mode },
      });
    });
  }

  private enqueue<T>(input: StartBuildInput, run: () => Promise<T>): Promise<T> {
    return this.serialize(`${input.site.graphName}/${input.env}`, run);
  }

  private serialize<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(run, run);
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  private pool(key: string): RenderPool {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new RenderPool({ size: 2 });
      this.pools.set(key, pool);
    }
    return pool;
  }

  private async execute(input: StartBuildInput, buildId: string): Promise<BuildResult> {
    const key = `${input.site.graphName}/${input.env}`;
    let final: BuildResult;
    try {
      const snapshot = await takeSnapshot({
        graph: input.graph,
        site: input.site,
        clock: this.options.clock,
      });
      const result = await build({
        source: snapshot,
        env: input.env,
        mode: input.mode,
        buildId,
        target: this.target(input.site.graphName, input.env),
        pool: this.pool(key),
        serveCheckUrl: input.serveCheckUrl,
        mediaBaseUrl: '/media',
      });
      final = this.toResult(result, input);
    } catch (error) {
      this.options.log.error({ err: error, buildId }, 'build failed');
      final = {
        ok: false,
        buildId,
        mode: input.mode,
        artifacts: 0,
        durationMs: 0,
        transformErrors: [],
        deploy: null,
        status: 'error',
        envId: `env:${input.env}`,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    const finishedAt = this.options.clock.now().toISOString();
    const stored = await input.graph.transaction(async (tx) => {
      const node = await tx.getNode(buildNodeId(buildId));
      const props: Record<string, unknown> = {
        ...(node?.props ?? {}),
        ok: final.ok,
        buildId,
        envId: `env:${input.env}`,
        status: final.ok ? 'ok' : 'error',
        mode: final.mode,
        artifacts: final.artifacts,
        durationMs: final.durationMs,
        transformErrors: final.transformErrors.slice(0, 200),
        deploy: final.deploy,
        error: final.error ?? null,
        finishedAt,
      };
      await tx.putNode({ id: buildNodeId(buildId), labels: [BUILD_LABEL], props });
      await tx.appendAudit({
        actor: input.actor,
        action: final.ok ? 'build.ok' : 'build.error',
        target: buildNodeId(buildId),
        data: { artifacts: final.artifacts, deployed: final.deploy !== null },
      });
      return props;
    });
    this.options.onFinished?.(stored as unknown as BuildStatus);
    return {
      ...final,
      status: stored.status as 'ok' | 'error',
      ...(typeof stored.startedAt === 'string' ? { startedAt: stored.startedAt } : {}),
      finishedAt,
    };
  }

  private toResult(result: BuilderResult, input: StartBuildInput): BuildResult {
    const problems = result.errors.map((issue) => `${issue.code}: ${issue.message}`);
    return {
      ok: result.ok,
      buildId: result.buildId,
      mode: result.mode === 'validate' ? 'validate' : result.mode,
      artifacts: result.artifacts,
      durationMs: Math.round(result.durationMs),
      transformErrors: result.transformErrors,
      deploy: result.deploy
        ? {
            ...result.deploy,
            durationMs: Math.round(result.deploy.durationMs),
            serveCheck: result.deploy.serveCheck
              ? { ...result.deploy.serveCheck, durationMs: Math.round(result.deploy.serveCheck.durationMs) }
              : null,
          }
        : null,
      status: result.ok ? 'ok' : 'error',
      envId: `env:${input.env}`,
      error: problems.length > 0 ? problems.slice(0, 20).join('; ') : null,
    };
  }
}
