import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BuildResult as BuilderResult,
  build,
  createDirectoryTarget,
  createS3Target,
  type DeployTarget,
  type PruneResult,
  RenderPool,
  serveCheck,
} from '@trelliscms/builder';
import {
  type AuditHeadAnchor,
  type BuildMode,
  type BuildProgress,
  type BuildResult,
  type BuildStatus,
  type LiveEntry,
  type OutputChannel,
  type SiteSnapshot,
  sortableId,
  TrellisError,
} from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Graph, GraphNode, GraphReader, Props } from '../engines/port';
import type { EventSink } from '../events/event-bus';
import type { SiteView } from '../platform/sites';
import { getEnvironment } from '../releases/environments';
import { getLiveHead, readLive, setLiveBuild } from '../releases/live-state';
import { DEPLOYMENT_LABEL } from '../releases/release-records';
import type { Clock } from '../shared/clock';
import { isQueryTimeout, unboundedGraph } from '../shared/deadline-graph';
import { makeInstanceId } from '../shared/instance-id';
import { internalNodeId, publicResourceId } from '../shared/internal-ids';
import type { ObjectStore } from '../shared/object-store';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';
import { releaseBuildLease, takeBuildLease } from './build-lease';
import { linkSiteFolder } from './site-folders';
import { takeSnapshot } from './take-snapshot';

/** Node label of a recorded build (a BuildEvent, docs/api-spec.md §6) in the site graph, id `~build:<buildId>`. */
export const BUILD_LABEL = 'Build';

/** `prod` or `env:prod` -> `prod`. */
export function envName(env: string | undefined): string {
  const name = env ?? 'dev';
  return name.startsWith('env:') ? name.slice(4) : name;
}

/** The node id of a build: `~build:<id>` (shared/internal-ids); audit entries name it `build:<id>`. */
export function buildNodeId(buildId: string): string {
  return internalNodeId('build', buildId);
}

/** Where a site environment's deploys live: `<dataDir>/sites/<graphName>/<env>/` (versions/, current). */
export function siteEnvRoot(dataDir: string, graphName: string, env: string): string {
  return join(dataDir, 'sites', graphName, env);
}

/** Where a preview build (`asOf`) lives: `<dataDir>/previews/<graphName>/<buildId>/` (versions/, current). */
export function previewRoot(dataDir: string, graphName: string, buildId: string): string {
  return join(dataDir, 'previews', graphName, buildId);
}

/** What a build is for (stored as the Build node's `purpose`). */
export type BuildPurpose = 'build' | 'deployment' | 'prebuild' | 'preview';

/**
 * The fingerprint of a snapshot: equal fingerprints build equal sites. A build made ahead for
 * a scheduled deployment is switched in at its time only while the fingerprint of what the
 * site would be built from then is still the one it was built from.
 *
 * Left out: when the snapshot was taken, and each item's `publishedAt` (when it last went live
 * anywhere). A deployment going live stamps `publishedAt` on its items, so with it a build made
 * ahead for the next deployment of a drip could never match; builds do not render it (the
 * template view of an item has no `publishedAt`).
 */
export function snapshotFingerprint(snapshot: SiteSnapshot): string {
  const items = snapshot.items.map(({ publishedAt: _publishedAt, ...item }) => item);
  return `sha256:${createHash('sha256')
    .update(JSON.stringify({ ...snapshot, items, exportedAt: '' }))
    .digest('hex')}`;
}

/** Where a preview is served: `/previews/<site slug>/<buildId>/`. */
export function previewUrl(slug: string, buildId: string): string {
  return `/previews/${slug}/${buildId}/`;
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
  /**
   * Whether `serveCheckUrl` is this server's own address (the live path it serves), built by
   * the server rather than taken from the site: its origin is trusted by the guarded fetcher.
   * A URL from the site (`publicUrl`) never is.
   */
  isServeCheckOwnAddress?: boolean;
  /**
   * What the build is for. `build` (default): it goes live when it ends (the environment's live
   * build is recorded, then the pointer switched). `deployment` and `prebuild`: it is written
   * beside the live version and left for the caller to switch in (release-publisher.ts).
   * `preview`: written to its own preview folder, never live.
   */
  purpose?: BuildPurpose;
  /**
   * The live state to build (item id → live version). Default: the environment's live state
   * now; `dev` builds heads. Deployments pass the live state with their release applied.
   */
  live?: ReadonlyMap<string, LiveEntry> | null;
  deploymentId?: string | null;
  /** For a preview: the time it shows. */
  asOf?: string | null;
  /** What the build emits (pages, feeds, sitemap, search); default all. */
  outputChannels?: OutputChannel[] | null;
}

/** Thrown inside a build stopped by {@link BuildService.cancel}. */
class BuildCancelled extends Error {
  constructor() {
    super('build cancelled on request; nothing was deployed');
  }
}

/** A build this process recorded and has not finished (queued or running). */
interface InFlightBuild {
  controller: AbortController;
  progress: BuildProgress;
  /** When the graph was last asked whether another server asked to cancel it. */
  checkedAt: number;
  /** The graph it is recorded in: its `aliveUntil` is renewed there while it is in flight. */
  graph: Graph;
}

/** Where live (or preview) pages are read from: a folder, or a target that reads its store. */
export type LiveSource = { dir: string; target?: undefined } | { target: DeployTarget; dir?: undefined };
/** The default of `CMS_BUILD_LEASE_MS`. */
export const DEFAULT_BUILD_LEASE_MS = 30_000;

/** A build's result with what the server keeps beside it. */
export type ServiceBuildResult = BuildResult & { fingerprint?: string };

/**
 * Runs builds for the server: one at a time per site and environment (later ones queue), off
 * the request thread (the builder renders in worker threads with memory and time limits),
 * deployed to the directory target under CMS_DATA_DIR (or, with CMS_STORAGE=s3, the S3 target
 * in the bucket) with an atomic pointer switch. A
 * non-validate build is recorded as a `Build` node whose `status` moves from `running` to
 * `ok` or `error`; validate builds are not recorded.
 */
export class BuildService {
  /** Builds recorded by this process and not finished: how to stop them and where they are. */
  private readonly inFlight = new Map<string, InFlightBuild>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly pools = new Map<string, RenderPool>();
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly options: {
      dataDir: string;
      log: FastifyBaseLogger;
      /** ms all of a build's transforms may take together (default: the builder's, 30 s). */
      transformBudgetMs?: number;
      /** Stamps build ids, `startedAt` and `finishedAt`. */
      clock: Clock;
      onFinished?: (status: BuildStatus) => void;
      /** Where `build.started`, `build.finished` and `build.failed` go (not for previews). */
      events?: EventSink;
      /** Called when an environment's pointer was switched to a build. */
      onSwitched?: (live: { buildId: string; at: string }) => void;
      /** How serve checks reach the deployed site: the server's guarded fetcher. */
      outbound: GuardedFetch;
      /**
       * Runs the site's `afterBuild` hooks once a build (not a preview) is recorded
       * (scripts/after-build.ts); a failure is logged, never the build's.
       */
      afterBuild?: (params: {
        graph: Graph;
        site: SiteView;
        actor: string;
        build: {
          buildId: string;
          env: string;
          ok: boolean;
          mode: string;
          artifacts: number;
          durationMs: number;
        };
      }) => Promise<unknown>;
      /** The head of a graph's audit chain, MACed, recorded in each build's manifest (see AuditAnchors). */
      auditHead?: (graphName: string, graph: Graph) => Promise<AuditHeadAnchor | null>;
      /**
       * This server's own origin (`http://127.0.0.1:4000`) once it listens, else null: a site
       * without a public URL gets absolute URLs (sitemap, canonical links) from the address the
       * server serves it at (`/sites/<slug>/<env>/`, a preview's `/previews/<slug>/<buildId>/`).
       */
      ownOrigin?: () => string | null;
      /**
       * How many versions of a site environment to keep after each build that went well
       * (`CMS_BUILD_RETENTION`): older ones are deleted, never the live one nor one waiting for its
       * scheduled switch; 0 keeps every version.
       */
      retention?: number;
      /**
       * The S3-compatible bucket sites are deployed to (CMS_STORAGE=s3): the S3 deploy target,
       * each environment under `<prefix>sites/<graphName>/<env>/`, previews under
       * `<prefix>previews/<graphName>/<buildId>/`. Null: the directory target under dataDir.
       */
      objectStore?: ObjectStore | null;
      /** This server among those sharing the platform (`CMS_INSTANCE_ID`): the holder of its build leases. */
      instanceId?: string;
      /**
       * How long a build queue's lease holds, in ms (`CMS_BUILD_LEASE_MS`): renewed every third
       * of it while the build runs; a server that died leaves it to another once it has passed.
       */
      leaseMs?: number;
      /** How often a build waiting for another server's lease asks again, in ms (default 500). */
      leasePollMs?: number;
    },
  ) {
    this.instanceId = options.instanceId ?? makeInstanceId();
    this.leaseMs = options.leaseMs ?? DEFAULT_BUILD_LEASE_MS;
  }

  /** Who holds this service's build leases. */
  readonly instanceId: string;
  readonly leaseMs: number;
  #heartbeat: NodeJS.Timeout | null = null;
  readonly #recheck = new Set<NodeJS.Timeout>();
  #closed = false;

  /**
   * A site environment's deploy target. With an object store, `flatPrefix` (the flat layout of
   * an environment with a custom domain) is where a build made through it is mirrored.
   */
  target(graphName: string, env: string, flatPrefix: string | null = null): DeployTarget {
    const store = this.options.objectStore;
    if (store) {
      return createS3Target({
        client: store.client,
        bucket: store.bucket,
        prefix: `${store.prefix}sites/${graphName}/${env}/`,
        flatPrefix,
      });
    }
    return createDirectoryTarget({ root: siteEnvRoot(this.options.dataDir, graphName, env) });
  }

  /** The S3 target of a preview build (`<prefix>previews/<graphName>/<buildId>/`). */
  private previewTarget(store: ObjectStore, graphName: string, buildId: string): DeployTarget {
    return createS3Target({
      client: store.client,
      bucket: store.bucket,
      prefix: `${store.prefix}previews/${graphName}/${buildId}/`,
    });
  }

  /** The deploy target a build writes to: the environment's, or a preview's own folder. */
  private async targetFor(input: StartBuildInput, buildId: string): Promise<DeployTarget> {
    const store = this.options.objectStore;
    if (store) {
      if (input.purpose === 'preview') return this.previewTarget(store, input.site.graphName, buildId);
      return this.target(input.site.graphName, input.env, await this.flatPrefixFor(store, input));
    }
    try {
      linkSiteFolder(this.options.dataDir, input.site.slug, input.site.graphName);
    } catch (error) {
      this.options.log.warn({ err: error }, 'could not link the site folder by slug (sites/by-slug/)');
    }
    if (input.purpose === 'preview') {
      return createDirectoryTarget({
        root: previewRoot(this.options.dataDir, input.site.graphName, buildId),
      });
    }
    return this.target(input.site.graphName, input.env);
  }

  /**
   * The flat layout (docs/storage.md): an environment with a custom domain — its own
   * `publicUrlOverride`, or for `prod` the site's `publicUrl` — is also mirrored, file for file,
   * under `<prefix>domains/<host>[/<path>]/`, what a CDN for that domain serves. Null: none.
   */
  private async flatPrefixFor(store: ObjectStore, input: StartBuildInput): Promise<string | null> {
    const override = await getEnvironment(input.graph, input.env).then(
      (environment) => environment.publicUrlOverride ?? null,
      () => null,
    );
    const url = override ?? (input.env === 'prod' ? input.site.publicUrl : null);
    if (!url) return null;
    try {
      const parsed = new URL(url);
      const path = parsed.pathname
        .split('/')
        .filter((part) => part !== '' && part !== '.' && part !== '..')
        .map(encodeURIComponent);
      return `${store.prefix}domains/${[parsed.host.toLowerCase(), ...path].join('/')}/`;
    } catch {
      return null;
    }
  }

  /** The folder a preview build is served from, or null when there is no such preview. */
  previewDir(graphName: string, buildId: string): string | null {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(buildId)) return null;
    const root = previewRoot(this.options.dataDir, graphName, buildId);
    return existsSync(root) ? createDirectoryTarget({ root }).liveDir() : null;
  }

  /**
   * Where a preview is served from: its folder, or (object store) its target, whose files are
   * read through its pointer; null when there is no such preview.
   */
  previewSource(graphName: string, buildId: string): LiveSource | null {
    const store = this.options.objectStore;
    if (!store) {
      const dir = this.previewDir(graphName, buildId);
      return dir ? { dir } : null;
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(buildId)) return null;
    return { target: this.previewTarget(store, graphName, buildId) };
  }

  /**
   * Where a site environment's live pages are served from: the live folder, or (object store)
   * the target, whose files are read through the pointer in the bucket, so any server serves them.
   */
  liveSource(graphName: string, env: string): LiveSource | null {
    if (this.options.objectStore) return { target: this.target(graphName, env) };
    const dir = this.liveDir(graphName, env);
    return dir ? { dir } : null;
  }

  /** Whether a site environment still holds the version of `buildId` (it can be switched in). */
  async hasVersion(graphName: string, env: string, buildId: string): Promise<boolean> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(buildId)) return false;
    if (this.options.objectStore) return this.target(graphName, env).hasVersion!(buildId);
    return existsSync(join(siteEnvRoot(this.options.dataDir, graphName, env), 'versions', buildId));
  }

  /** The build a site environment serves now (its pointer, read from the store), or null. */
  async servedBuildId(graphName: string, env: string): Promise<string | null> {
    const target = this.target(graphName, env);
    if (target.readLiveBuildId) return target.readLiveBuildId();
    return target.liveBuildId?.() ?? null;
  }

  /**
   * Switches a site environment to the version of `buildId` (one atomic pointer write). Goes
   * through the environment's build queue (so it never lands in the middle of a build), unless
   * the caller already runs in it (`inQueue`, from {@link exclusive}).
   */
  async activate(
    graphName: string,
    env: string,
    buildId: string,
    { inQueue = false }: { inQueue?: boolean } = {},
  ): Promise<{ previousBuildId: string | null }> {
    const run = async () => {
      const target = this.target(graphName, env);
      if ((await this.servedBuildId(graphName, env)) === buildId) return { previousBuildId: buildId };
      const result = await target.activate!(buildId);
      return { previousBuildId: result.previousBuildId };
    };
    return inQueue ? run() : this.serialize(`${graphName}/${env}`, run);
  }

  /**
   * Deletes old versions of a site environment, in its build queue: all but the live one, the
   * `keep` newest and those a pending deployment or a running build still needs. Rolling back to
   * a deleted version builds it again (release-publisher.ts).
   */
  async prune({
    graph,
    graphName,
    env,
    keep,
  }: {
    graph: GraphReader;
    graphName: string;
    env: string;
    keep: number;
  }): Promise<PruneResult> {
    return this.serialize(`${graphName}/${env}`, () => this.pruneInQueue(graph, graphName, env, keep));
  }

  private async pruneInQueue(graph: GraphReader, graphName: string, env: string, keep: number) {
    const protect = new Set<string>();
    const waiting = await graph.findNodes({
      label: DEPLOYMENT_LABEL,
      where: [
        { prop: 'status', op: 'eq', value: 'pending' },
        { prop: 'environmentId', op: 'eq', value: `env:${env}` },
      ],
      limit: 10_000,
    });
    for (const node of waiting.nodes) {
      if (typeof node.props.prebuiltBuildId === 'string') protect.add(node.props.prebuiltBuildId);
    }
    const running = await graph.findNodes({
      label: BUILD_LABEL,
      where: [{ prop: 'status', op: 'eq', value: 'running' }],
      limit: 10_000,
    });
    for (const node of running.nodes) {
      if (typeof node.props.buildId === 'string') protect.add(node.props.buildId);
    }
    const result = await this.target(graphName, env).prune!({ keep, protect });
    if (result.removed.length > 0) {
      this.options.log.info(
        { graphName, envId: `env:${env}`, removed: result.removed.length, kept: result.kept },
        'pruned old build versions',
      );
    }
    return result;
  }

  /** Runs `fn` in a site environment's build queue: no build of the environment runs meanwhile. */
  exclusive<T>(graphName: string, env: string, fn: () => Promise<T>): Promise<T> {
    return this.serialize(`${graphName}/${env}`, fn);
  }

  /** Whether no build (or switch) of the site environment is running or queued in this process. */
  isIdle(graphName: string, env: string): boolean {
    return !this.queues.has(`${graphName}/${env}`);
  }

  /** The fingerprint of what a build of `input` would render now (see {@link snapshotFingerprint}). */
  async fingerprint(input: Pick<StartBuildInput, 'site' | 'graph' | 'env' | 'live'>): Promise<string> {
    return snapshotFingerprint(
      await this.snapshotFor({ ...input, mode: 'incremental', actor: 'system', serveCheckUrl: null }),
    );
  }

  /** The folder a site environment's live pages are served from, or null before the first deploy. */
  liveDir(graphName: string, env: string): string | null {
    return this.target(graphName, env).liveDir();
  }

  /**
   * A build record that never recorded its outcome, marked as ended now in error. One that
   * stopped during its serve check had already gone live: it ends `ok`, its check not made.
   */
  private endedInError(props: Props, error: string): Props {
    const deploy = props.deploy as Record<string, unknown> | null | undefined;
    if (props.ok === true && deploy && typeof props.finishedAt === 'string') {
      const warning = { code: 'serve_check_not_run', message: `the serve check did not run: ${error}` };
      const warnings = Array.isArray(props.warnings) ? props.warnings : [];
      return { ...props, status: 'ok', deploy: { ...deploy, ok: false }, warnings: [...warnings, warning] };
    }
    return {
      ...props,
      ok: false,
      status: 'error',
      error,
      finishedAt: this.options.clock.now().toISOString(),
    };
  }

  /**
   * Marks a background build that failed before it recorded its outcome (its record still says
   * `running`) as ended in error, so nobody waits on it; leaves a recorded outcome alone.
   */
  private async recordUnfinished(graph: Graph, buildId: string, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    await graph
      .transaction(async (tx) => {
        const node = await tx.getNode(buildNodeId(buildId));
        if (node?.props.status !== 'running') return;
        await tx.updateNode(node.id, {
          props: this.endedInError(node.props, `the build stopped before it ended: ${message}`),
        });
      })
      .catch((failure: unknown) =>
        this.options.log.error({ err: failure, buildId }, 'could not record the failed build'),
      );
  }

  /** Runs a build and resolves with its result when it ends. */
  async runSync(input: StartBuildInput): Promise<ServiceBuildResult> {
    const buildId = newBuildId(this.options.clock.now());
    if (input.mode === 'validate') return this.validate(input, buildId);
    await this.record(input, buildId);
    return this.enqueue(input, buildId, () => this.execute(input, buildId)).finally(() =>
      this.inFlight.delete(buildId),
    );
  }

  /** Starts a build and resolves at once with its id; the build runs in the background. */
  async start(input: StartBuildInput): Promise<{ buildId: string; envId: string; previewUrl?: string }> {
    const buildId = newBuildId(this.options.clock.now());
    if (input.mode === 'validate') {
      throw TrellisError.of('validation_failed', {
        detail: 'a validate build (dryRun) runs synchronously; leave async off',
      });
    }
    await this.record(input, buildId);
    // The build outlives the request: the request's query budget does not bound it.
    const background = { ...input, graph: unboundedGraph(input.graph) };
    const task = this.enqueue(input, buildId, () => this.execute(background, buildId))
      .catch(async (error: unknown) => {
        this.options.log.error({ err: error, buildId }, 'async build failed');
        await this.recordUnfinished(background.graph, buildId, error);
      })
      .finally(() => this.inFlight.delete(buildId));
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
    return {
      buildId,
      envId: `env:${input.env}`,
      ...(input.purpose === 'preview' ? { previewUrl: previewUrl(input.site.slug, buildId) } : {}),
    };
  }

  /** Waits for builds in flight (graceful shutdown), then ends the render workers. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#recheck) clearTimeout(timer);
    this.#recheck.clear();
    await Promise.allSettled([...this.running]);
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }

  async status(graph: GraphReader, buildId: string): Promise<BuildStatus> {
    const node = await graph.getNode(buildNodeId(buildId));
    if (!node?.labels.includes(BUILD_LABEL)) {
      throw TrellisError.of('not_found', { resource: `Build \`${buildId}\`` });
    }
    const status = toBuildStatus(node);
    const running = this.inFlight.get(buildId);
    return running && status.status === 'running' ? { ...status, progress: running.progress } : status;
  }

  /**
   * Asks a queued or running build to stop: this process aborts it at once (rendering stops
   * between pages, nothing is deployed, the live version stays); a build another server runs
   * sees the request on the graph within about a second. The build then ends `error` with
   * `cancelled: true`. 409 when it is no longer running.
   */
  async cancel(graph: Graph, buildId: string, actor: string): Promise<BuildStatus> {
    const node = await graph.getNode(buildNodeId(buildId));
    if (!node?.labels.includes(BUILD_LABEL)) {
      throw TrellisError.of('not_found', { resource: `Build \`${buildId}\`` });
    }
    if (node.props.status !== 'running') {
      throw TrellisError.of('conflict', {
        detail: `build ${buildId} is not running (it ended ${String(node.props.status)}); there is nothing to cancel`,
      });
    }
    if (typeof node.props.finishedAt === 'string') {
      throw TrellisError.of('conflict', {
        detail: `build ${buildId} has gone live and only its serve check is running; there is nothing to cancel`,
      });
    }
    await graph.transaction(async (tx) => {
      const current = await tx.getNode(node.id);
      if (!current) return;
      await tx.updateNode(node.id, { props: { ...current.props, cancelRequested: true } });
      await tx.appendAudit({ actor, action: 'build.cancel', target: publicResourceId(node.id) });
    });
    this.inFlight.get(buildId)?.controller.abort();
    return this.status(graph, buildId);
  }

  /** Moves a build's progress on; at most once a second, also looks for a cancel request from another server. */
  private advance(graph: GraphReader, buildId: string, progress: Omit<BuildProgress, 'at'>): void {
    const running = this.inFlight.get(buildId);
    if (!running) return;
    running.progress = { ...progress, at: this.options.clock.now().toISOString() };
    const now = Date.now();
    if (now - running.checkedAt < 1000 || running.controller.signal.aborted) return;
    running.checkedAt = now;
    void graph.getNode(buildNodeId(buildId)).then(
      (node) => {
        if (node?.props.cancelRequested === true) running.controller.abort();
      },
      () => undefined,
    );
  }

  /** A page of an environment's builds (every environment's without `env`), newest first, with their count. */
  async history(
    graph: GraphReader,
    { env, limit, offset = 0 }: { env?: string; limit: number; offset?: number },
  ): Promise<{ items: BuildStatus[]; total: number }> {
    const page = await graph.findNodes({
      label: BUILD_LABEL,
      where: env === undefined ? [] : [{ prop: 'envId', op: 'eq', value: `env:${envName(env)}` }],
      orderBy: [
        { prop: 'startedAt', direction: 'desc' },
        { prop: 'buildId', direction: 'desc' },
      ],
      limit,
      offset,
    });
    const served = new Map<string, string | null>();
    const items = await Promise.all(
      page.nodes.map(async (node) => {
        const status = toBuildStatus(node);
        const envId = status.envId;
        if (!served.has(envId)) served.set(envId, (await getLiveHead(graph, envId)).buildId);
        return { ...status, live: served.get(envId) === status.buildId };
      }),
    );
    return { items, total: page.total };
  }

  /**
   * The build an environment serves now (`live: true`; what the last deployment, rollback or
   * build switched in, as recorded in the graph, so it survives a restart), or the newest
   * build of the environment when none was switched in yet; null when it has no build.
   */
  async last(graph: GraphReader, env: string): Promise<BuildStatus | null> {
    const envId = `env:${envName(env)}`;
    const served = (await getLiveHead(graph, envId)).buildId;
    if (served) {
      const node = await graph.getNode(buildNodeId(served));
      if (node?.labels.includes(BUILD_LABEL)) return { ...toBuildStatus(node), live: true };
    }
    const [newest] = (await this.history(graph, { env, limit: 1 })).items;
    return newest ?? null;
  }

  /**
   * Makes a prior build of the same environment live again (one pointer switch), and records
   * it as the build the environment serves.
   */
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
    if (status.status !== 'ok' || !status.deploy || (status as { purpose?: string }).purpose === 'preview') {
      throw TrellisError.of('business_rule', {
        detail: `build ${buildId} did not deploy (status ${status.status}); only a deployed build can be made live again`,
      });
    }
    const env = envName(status.envId);
    if (!(await this.hasVersion(site.graphName, env, buildId))) {
      throw TrellisError.of('build_version_not_found', { buildId });
    }
    const previous = await this.servedBuildId(site.graphName, env);
    await graph.transaction(async (tx) => {
      await setLiveBuild(tx, status.envId, buildId, this.options.clock.now());
      await tx.appendAudit({
        actor,
        action: 'build.rollback',
        target: publicResourceId(buildNodeId(buildId)),
        data: { env, from: previous },
      });
    });
    await this.activate(site.graphName, env, buildId);
    this.options.onSwitched?.({ buildId, at: this.options.clock.now().toISOString() });
    return { ok: true, buildId, envId: status.envId, rolledBackFrom: previous };
  }

  /** Marks builds left `running` by a previous process as `error` (they cannot finish any more). */
  async recoverInterrupted(graph: Graph): Promise<number> {
    const page = await graph.findNodes({
      label: BUILD_LABEL,
      where: [{ prop: 'status', op: 'eq', value: 'running' }],
      limit: 1000,
    });
    // A build another live server has in flight renews its `aliveUntil`: it is left alone.
    const nowMs = Date.now();
    const alive = (node: GraphNode) =>
      typeof node.props.aliveUntil === 'number' && node.props.aliveUntil > nowMs;
    const dead = page.nodes.filter((node) => !alive(node) && !this.inFlight.has(String(node.props.buildId)));
    // Looked at again once their time has passed: a server that died meanwhile (or this one's
    // previous life, restarted quickly) stops renewing them, and they are marked then.
    const later = page.nodes.filter(alive).map((node) => Number(node.props.aliveUntil));
    if (later.length > 0 && !this.#closed) {
      const timer = setTimeout(
        () => {
          this.#recheck.delete(timer);
          void this.recoverInterrupted(graph).catch(() => undefined);
        },
        Math.max(...later) - nowMs + 1000,
      );
      timer.unref();
      this.#recheck.add(timer);
    }
    if (dead.length === 0) return 0;
    await graph.transaction(async (tx) => {
      for (const node of dead) {
        await tx.updateNode(node.id, {
          props: this.endedInError(node.props, 'interrupted: the server stopped before the build ended'),
        });
        await tx.appendAudit({
          actor: 'system',
          action: 'build.interrupted',
          target: publicResourceId(node.id),
        });
      }
    });
    return dead.length;
  }

  /** The snapshot a build of `input` renders: the environment's live state (or `input.live`); heads for dev. */
  /**
   * Where the server serves the pages of `input`'s build: the base of its absolute URLs when
   * neither the environment (`publicUrlOverride`) nor the site (`publicUrl`) names one.
   */
  private previewBaseUrl(input: StartBuildInput, buildId: string): string | null {
    const origin = this.options.ownOrigin?.() ?? null;
    if (!origin) return null;
    return input.purpose === 'preview'
      ? `${origin}${previewUrl(input.site.slug, buildId)}`
      : `${origin}/sites/${input.site.slug}/${input.env}/`;
  }

  /**
   * The snapshot a build of `input` reads. The environment's `publicUrlOverride`, when set, is
   * its public URL: the base of the environment's absolute URLs.
   */
  private async snapshotFor(input: StartBuildInput): Promise<SiteSnapshot> {
    const snapshot = await this.takeSnapshotFor(input);
    const override = await getEnvironment(input.graph, input.env).then(
      (environment) => environment.publicUrlOverride ?? null,
      () => null,
    );
    return override ? { ...snapshot, site: { ...snapshot.site, publicUrl: override } } : snapshot;
  }

  private async takeSnapshotFor(input: StartBuildInput): Promise<SiteSnapshot> {
    const live =
      input.live !== undefined
        ? input.live
        : input.env === 'dev'
          ? null
          : await readLive(input.graph, `env:${input.env}`);
    return takeSnapshot({
      graph: input.graph,
      site: input.site,
      clock: this.options.clock,
      env: input.env,
      live: input.env === 'dev' && input.live === undefined ? null : (live ?? new Map()),
    });
  }

  private async validate(input: StartBuildInput, buildId: string): Promise<BuildResult> {
    const snapshot = await this.snapshotFor(input);
    const result = await build({
      source: snapshot,
      env: input.env,
      mode: 'validate',
      buildId,
      outputChannels: input.outputChannels ?? null,
      previewBaseUrl: this.previewBaseUrl(input, buildId),
    });
    return {
      ...this.toResult(result, input),
      dryRun: true,
      artifactPaths: result.files.map((file) => file.file),
    };
  }

  private async record(input: StartBuildInput, buildId: string): Promise<void> {
    const startedAt = this.options.clock.now().toISOString();
    const purpose = input.purpose ?? 'build';
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
          purpose,
          deploymentId: input.deploymentId ?? null,
          asOf: input.asOf ?? null,
          previewUrl: purpose === 'preview' ? previewUrl(input.site.slug, buildId) : null,
          startedAt,
          finishedAt: null,
          requestedBy: input.actor,
          instance: this.instanceId,
          aliveUntil: Date.now() + this.leaseMs,
        },
      });
      await tx.appendAudit({
        actor: input.actor,
        action: 'build.start',
        target: publicResourceId(buildNodeId(buildId)),
        data: { env: input.env, mode: input.mode, purpose, deploymentId: input.deploymentId ?? null },
      });
    });
    if (purpose !== 'preview') {
      this.options.events?.emit({
        type: 'build.started',
        siteId: input.site.id,
        data: {
          buildId,
          env: input.env,
          mode: input.mode,
          purpose,
          deploymentId: input.deploymentId ?? null,
          requestedBy: input.actor,
        },
      });
    }
    this.inFlight.set(buildId, {
      controller: new AbortController(),
      progress: { phase: 'queued', done: 0, total: 0, at: startedAt },
      checkedAt: Date.now(),
      graph: unboundedGraph(input.graph),
    });
    this.#startHeartbeat();
  }

  /**
   * While builds are in flight here (queued or running), renews their `aliveUntil` every third
   * of the lease, so a server starting meanwhile does not take them for interrupted.
   */
  #startHeartbeat(): void {
    if (this.#heartbeat !== null) return;
    this.#heartbeat = setInterval(() => {
      if (this.inFlight.size === 0) {
        if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
        this.#heartbeat = null;
        return;
      }
      const aliveUntil = Date.now() + this.leaseMs;
      for (const [buildId, running] of this.inFlight) {
        void running.graph
          .transaction(async (tx) => {
            const node = await tx.getNode(buildNodeId(buildId));
            if (node?.props.status === 'running')
              await tx.updateNode(node.id, { props: { ...node.props, aliveUntil } });
          })
          .catch(() => undefined);
      }
    }, this.leaseMs / 3);
    this.#heartbeat.unref();
  }

  /**
   * The queue (and render pool) of a build: one per site environment; builds ahead
   * (`prebuild`) have their own, so a switch never waits behind them, and previews too.
   */
  private queueKey(input: StartBuildInput): string {
    const key = `${input.site.graphName}/${input.env}`;
    if (input.purpose === 'prebuild') return `${key}#ahead`;
    if (input.purpose === 'preview') return `${key}#preview`;
    return key;
  }

  private enqueue<T>(input: StartBuildInput, buildId: string, run: () => Promise<T>): Promise<T> {
    // Previews build into their own folders: they need no lease.
    if (input.purpose === 'preview') return this.serialize(this.queueKey(input), run);
    return this.serialize(this.queueKey(input), () => this.underLease(input, buildId, run));
  }

  /**
   * Runs `run` holding the graph lease of the build's queue, so one server at a time builds a
   * site environment (docs/scaling.md § Several API servers). While another server holds it,
   * the build stays queued and asks again every `leasePollMs` (a cancel request is seen
   * meanwhile); a lease whose holder stopped renewing it is taken over once it has expired.
   * The lease is renewed every third of its time while `run` runs and given back after.
   */
  private async underLease<T>(input: StartBuildInput, buildId: string, run: () => Promise<T>): Promise<T> {
    const graph = unboundedGraph(input.graph);
    const queue = this.queueKey(input).slice(input.site.graphName.length + 1);
    const holder = this.instanceId;
    const log = this.options.log;
    const signal = this.inFlight.get(buildId)?.controller.signal;
    const pollMs = this.options.leasePollMs ?? 500;
    let waited = false;
    // A failed attempt (the engine busy: on one embedded data directory another process may hold
    // the write lock past the busy timeout) is asked again like a held lease, until a lease's time.
    const giveUpAt = Date.now() + this.leaseMs;
    for (;;) {
      let lease: Awaited<ReturnType<typeof takeBuildLease>> | null = null;
      try {
        lease = await takeBuildLease(graph, {
          queue,
          holder,
          buildId,
          nowMs: Date.now(),
          leaseMs: this.leaseMs,
        });
      } catch (error) {
        if (Date.now() >= giveUpAt) throw error;
        log.warn({ err: error, buildId, queue }, 'could not ask for the build lease; asking again');
      }
      if (lease?.taken) {
        const previous = lease.previous;
        if (previous && previous.holder !== holder && previous.holder) {
          log.warn(
            { buildId, queue, previousHolder: previous.holder, previousBuildId: previous.buildId },
            'took over an expired build lease (its holder stopped renewing it)',
          );
        }
        // When this build got the queue: across servers, no two of one queue overlap from here to `finishedAt`.
        await graph
          .transaction(async (tx) => {
            const node = await tx.getNode(buildNodeId(buildId));
            if (node) await tx.updateNode(node.id, { props: { ...node.props, leasedAt: Date.now() } });
          })
          .catch(() => undefined);
        break;
      }
      if (lease && !waited) {
        waited = true;
        log.info(
          { buildId, queue, heldBy: lease.heldBy.holder, heldFor: lease.heldBy.buildId },
          'build queued: another server is building this site environment',
        );
      }
      const node = await graph.getNode(buildNodeId(buildId)).catch(() => null);
      if (node?.props.cancelRequested === true) this.inFlight.get(buildId)?.controller.abort();
      // A cancelled build runs on only to record that it was cancelled; it touches nothing.
      if (signal?.aborted) return run();
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    const renew = setInterval(() => {
      void takeBuildLease(graph, { queue, holder, buildId, nowMs: Date.now(), leaseMs: this.leaseMs }).then(
        (lease) => {
          if (!lease.taken)
            log.error(
              { buildId, queue, heldBy: lease.heldBy.holder },
              'lost the build lease to another server (this process stalled past CMS_BUILD_LEASE_MS)',
            );
        },
        (error: unknown) => log.warn({ err: error, buildId }, 'could not renew the build lease'),
      );
    }, this.leaseMs / 3);
    renew.unref();
    try {
      return await run();
    } finally {
      clearInterval(renew);
      await releaseBuildLease(graph, { queue, holder }).catch((error: unknown) =>
        log.warn({ err: error, buildId }, 'could not give the build lease back (it expires by itself)'),
      );
    }
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

  /**
   * Runs one build. Nothing goes live inside the builder: the version is written beside the
   * live one, and for a plain build (`purpose` build) the graph first records it as the build
   * the environment serves, then the pointer is switched (so a process stopping in between is
   * put right on the next start, see `reconcile` in release-publisher.ts). Deployment builds
   * and prebuilds are left for the caller to switch in; previews go live in their own folder.
   *
   * A sync build's snapshot is read within the request's query budget (`input.graph` may be a
   * bounded graph): past it the build is recorded as failed and the query timeout is thrown
   * on (504). Its outcome is always recorded, whatever is left of the budget.
   */
  private async execute(input: StartBuildInput, buildId: string): Promise<ServiceBuildResult> {
    const key = this.queueKey(input);
    const purpose = input.purpose ?? 'build';
    const graph = unboundedGraph(input.graph);
    let final: BuildResult;
    let fingerprint: string | undefined;
    let timeout: unknown = null;
    const signal = this.inFlight.get(buildId)?.controller.signal;
    try {
      this.advance(graph, buildId, { phase: 'snapshot', done: 0, total: 0 });
      if (signal?.aborted) throw new BuildCancelled();
      // Read before the snapshot: every record up to this head is in the graph the build reads.
      const auditHead =
        purpose === 'preview' ? null : await this.options.auditHead?.(input.site.graphName, input.graph);
      const snapshot = await this.snapshotFor(input);
      if (purpose === 'deployment' || purpose === 'prebuild') fingerprint = snapshotFingerprint(snapshot);
      const result = await build({
        source: snapshot,
        env: input.env,
        mode: input.mode,
        buildId,
        target: await this.targetFor(input, buildId),
        pool: purpose === 'preview' ? undefined : this.pool(key),
        serveCheckUrl: purpose === 'build' ? input.serveCheckUrl : null,
        // media_url gives the assets' own `/media/assets/…` paths, as `cms-build` does
        mediaBaseUrl: null,
        outputChannels: input.outputChannels ?? null,
        previewBaseUrl: this.previewBaseUrl(input, buildId),
        activate: purpose === 'preview',
        auditHead,
        signal,
        onProgress: (progress) => this.advance(graph, buildId, progress),
        ...(this.options.transformBudgetMs
          ? { limits: { transformBudgetMs: this.options.transformBudgetMs } }
          : {}),
      });
      if (signal?.aborted) throw new BuildCancelled();
      final = this.toResult(result, input);
    } catch (error) {
      if (isQueryTimeout(error)) timeout = error;
      else if (!(error instanceof BuildCancelled))
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
    const goesLive = purpose === 'build' && final.ok && final.deploy !== null;
    // A build whose serve check follows its switch stays `running` until the check is recorded:
    // a status poll in between would otherwise see the build ended without its serve check.
    const checking = goesLive && Boolean(input.serveCheckUrl);
    const outcome = final.ok ? 'ok' : 'error';
    const stored = await graph.transaction(async (tx) => {
      const node = await tx.getNode(buildNodeId(buildId));
      const props: Record<string, unknown> = {
        ...(node?.props ?? {}),
        ok: final.ok,
        buildId,
        envId: `env:${input.env}`,
        status: checking ? 'running' : outcome,
        mode: final.mode,
        artifacts: final.artifacts,
        durationMs: final.durationMs,
        transformErrors: final.transformErrors.slice(0, 200),
        ...(final.warnings ? { warnings: final.warnings } : {}),
        deploy: final.deploy,
        error: final.error ?? null,
        finishedAt,
        // Wall time (`finishedAt` follows the app clock): with `leasedAt`, when it held its queue.
        endedAt: Date.now(),
        ...(fingerprint ? { fingerprint } : {}),
        ...(final.rendered === undefined
          ? {}
          : { rendered: final.rendered, carried: final.carried ?? 0, reasons: final.reasons ?? {} }),
        ...(signal?.aborted && !final.ok ? { cancelled: true } : {}),
      };
      await tx.putNode({ id: buildNodeId(buildId), labels: [BUILD_LABEL], props });
      if (goesLive) await setLiveBuild(tx, `env:${input.env}`, buildId, this.options.clock.now());
      await tx.appendAudit({
        actor: input.actor,
        action: final.ok ? 'build.ok' : 'build.error',
        target: publicResourceId(buildNodeId(buildId)),
        data: { artifacts: final.artifacts, deployed: final.deploy !== null, purpose },
      });
      return props;
    });
    if (goesLive) {
      try {
        this.advance(graph, buildId, { phase: 'deploy', done: 0, total: 0 });
        await this.target(input.site.graphName, input.env).activate!(buildId);
        this.options.onSwitched?.({ buildId, at: finishedAt });
        // The serve check probes what is served, so it runs once the build is switched in.
        if (checking && input.serveCheckUrl && final.deploy) {
          const url = input.serveCheckUrl;
          const trustedOrigins = input.isServeCheckOwnAddress ? [new URL(url).origin] : [];
          const check = await serveCheck(url, {
            fetch: (target, init) => this.options.outbound(target, { ...init, trustedOrigins }),
          });
          final = {
            ...final,
            deploy: {
              ...final.deploy,
              ok: final.deploy.ok && check.ok,
              serveCheck: { ...check, durationMs: Math.round(check.durationMs) },
            },
          };
        }
      } finally {
        // The outcome is recorded even when the switch failed (the graph already names it live).
        if (checking) {
          const deploy = final.deploy;
          await graph.transaction(async (tx) => {
            const node = await tx.getNode(buildNodeId(buildId));
            if (node) await tx.updateNode(node.id, { props: { ...node.props, deploy, status: outcome } });
          });
          stored.deploy = deploy;
          stored.status = outcome;
        }
      }
    }
    const retention = this.options.retention ?? 0;
    if (final.ok && final.deploy !== null && purpose !== 'preview' && retention > 0) {
      // Only the environment's own queue prunes (a build ahead runs in its own queue beside it).
      const pruning =
        purpose === 'prebuild'
          ? Promise.resolve()
          : this.pruneInQueue(graph, input.site.graphName, input.env, retention).then(() => undefined);
      await pruning.catch((error: unknown) =>
        this.options.log.warn({ err: error, buildId }, 'could not prune old build versions'),
      );
    }
    this.inFlight.delete(buildId);
    this.options.onFinished?.(stored as unknown as BuildStatus);
    if (purpose !== 'preview') {
      this.options.events?.emit({
        type: final.ok ? 'build.finished' : 'build.failed',
        siteId: input.site.id,
        data: {
          buildId,
          env: input.env,
          mode: final.mode,
          purpose,
          deploymentId: input.deploymentId ?? null,
          artifacts: final.artifacts,
          durationMs: final.durationMs,
          live: goesLive,
          error: final.error ?? null,
          cancelled: stored.cancelled === true,
          requestedBy: input.actor,
        },
      });
    }
    if (purpose !== 'preview' && this.options.afterBuild) {
      const build = {
        buildId,
        env: input.env,
        ok: final.ok,
        mode: final.mode,
        artifacts: final.artifacts,
        durationMs: final.durationMs,
      };
      await this.options
        .afterBuild({ graph, site: input.site, actor: input.actor, build })
        .catch((error: unknown) =>
          this.options.log.error({ err: error, buildId }, 'afterBuild hooks failed'),
        );
    }
    if (timeout !== null) throw timeout;
    return {
      ...final,
      status: stored.status as 'ok' | 'error',
      ...(typeof stored.startedAt === 'string' ? { startedAt: stored.startedAt } : {}),
      finishedAt,
      ...(purpose === 'preview'
        ? { asOf: input.asOf ?? undefined, previewUrl: previewUrl(input.site.slug, buildId) }
        : {}),
      ...(fingerprint ? { fingerprint } : {}),
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
      rendered: result.rendered,
      carried: result.carried,
      reasons: result.reasons,
      warnings: result.warnings.slice(0, 200),
    };
  }
}
