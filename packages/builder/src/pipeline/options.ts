import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type {
  AuditHeadAnchor,
  BuildManifest,
  BuildMode,
  DeployResult,
  OutputChannel,
  TransformError,
} from '@trelliscms/core';
import { sortableId, TrellisError } from '@trelliscms/core/build';
import type { DeployTarget } from '../deploy/types';
import type { BuildCache } from '../incremental/build-cache';
import type { LiquidLimits } from '../liquid/create-liquid';
import type { BuildIssue } from '../plan/plan-artifacts';
import type { TransformLimits } from '../render/apply-transforms';
import type { RenderPool, WorkerLimits } from '../render/render-pool';
import type { Snapshot } from '../snapshot/types';
import type { ContentSource } from '../source/content-source';

/** Progress of a build, for a progress display. */
export interface BuildProgress {
  phase: 'plan' | 'render' | 'emit' | 'deploy';
  done: number;
  total: number;
}

/** Render limits: liquidjs's, the workers', the largest page, and the transforms'. */
export type RenderLimits = LiquidLimits & WorkerLimits & TransformLimits & { maxPageBytes?: number };

export interface BuildOptions {
  /** the content: a snapshot object, or any {@link ContentSource} (its `snapshot()` is read once) */
  source: ContentSource | Snapshot;
  /** environment name; `dev` builds all content, any other builds only content published to it (else a stub page). Default `dev` */
  env?: string;
  /** default `incremental` (a full build when there is no compatible previous build) */
  mode?: BuildMode;
  /** where to deploy; required unless `mode` is `validate` */
  target?: DeployTarget | null;
  /** the previous build's manifest; default: the target's live manifest */
  previous?: BuildManifest | null;
  /** default: `b<UTC timestamp>-<random>` (sortable) */
  buildId?: string;
  /** render worker threads; default min(2, cores). 0 renders in this thread (no isolation; for debugging) */
  workers?: number;
  /** warm render workers kept between builds (one per site and environment); default: workers started and ended per build */
  pool?: RenderPool;
  /**
   * state kept between builds of one site and environment, so an incremental build costs about
   * what it renders; default: the cache of `pool` (`pool.cache`) when there is one, else none. null: none
   */
  cache?: BuildCache | null;
  /**
   * the manifest is only written out, not read by the caller (`cms-build`): a build without a
   * cache then keeps each page's dependencies as the JSON text its worker gave (copied into the
   * manifest's shards as it is, never parsed), and `result.manifest.artifacts[].deps` are
   * read-only objects that parse that text when first read. Default false: plain objects.
   */
  manifestWrittenOnly?: boolean;
  /**
   * render limits: liquidjs's (`renderTimeMs`, `memoryBytes`, `parseChars`), the workers'
   * (`memoryMb`, `stallTimeoutMs`), `maxPageBytes`, the transforms' (`transformTimeMs` per item,
   * `transformBudgetMs` for the build)
   */
  limits?: RenderLimits;
  /** base URL for `media_url` of `/media/...` paths */
  mediaBaseUrl?: string | null;
  /**
   * what the build emits: `pages` (item pages, routes and views), `feeds` (routes and views
   * whose path ends in `.xml`, `.rss`, `.atom` or `.json`), `sitemap`, `search`; default all.
   * The version holds only these (a build without `sitemap` has no `sitemap.xml`).
   */
  outputChannels?: readonly OutputChannel[] | null;
  /**
   * where the site is served when its snapshot has no `publicUrl` (e.g. the server's preview,
   * `http://127.0.0.1:4000/sites/<slug>/<env>/`): the base of its absolute URLs (sitemap,
   * `absolute_url`, `site.url`). Without a public URL the build warns `public_url_missing`.
   */
  previewBaseUrl?: string | null;
  /** probe this URL after deploying (the result's `deploy.serveCheck`); not probed when `activate` is false */
  serveCheckUrl?: string | null;
  /**
   * make the new version live when it is committed; default true. false builds ahead: the
   * version is written complete (an incremental build carries the unchanged files of the live
   * version into it) and its manifest recorded, but the live version stays live and no serve
   * check runs (the result's `live` is false); `target.activate(buildId)` makes it live later
   * in one atomic switch. The state kept between builds (the cache) keeps describing the live
   * version; the new version's state is kept aside for the first build after it goes live.
   * Needs a target that keeps versions (with `activate`), else `invalid_deploy_options`.
   * Ignored by `validate` builds, which write nothing.
   */
  activate?: boolean;
  /** `auto` picks a full build when more than this share of pages changed; default 0.3 */
  autoThreshold?: number;
  /** recorded in the manifest as its `auditHead`: the head of the content's audit chain, anchored outside the graph */
  auditHead?: AuditHeadAnchor | null;
  onProgress?: (progress: BuildProgress) => void;
  signal?: AbortSignal;
  now?: () => Date;
}

/** One file of a build. */
export interface BuildFile {
  key: string;
  file: string;
  bytes: number;
}

/** The outcome of a build (docs/api-spec.md §2 BuildResult, plus what a caller needs to show and store). */
export interface BuildResult {
  /** false when planning or rendering reported an error, or the build was stopped; nothing is deployed then */
  ok: boolean;
  buildId: string;
  env: string;
  /** the mode asked for */
  mode: BuildMode;
  /** what ran: `full`, `incremental` or `validate` */
  effectiveMode: Exclude<BuildMode, 'auto'>;
  /** files in the build (pages, listings, sitemap, search index) */
  artifacts: number;
  /** pages rendered by this build */
  rendered: number;
  /** keys of the pages rendered (`item:<id>`, `route:<path>#<page>`) */
  renderedKeys: string[];
  /** pages carried over unchanged from the previous build */
  carried: number;
  /**
   * why the pages were rendered, counted: `full`, `new`, `moved`, `template-changed`,
   * `item-changed`, `query-changed`, `collection:<name>`
   */
  reasons: Record<string, number>;
  durationMs: number;
  transformErrors: TransformError[];
  /** `route_collision`, `template_missing`, `render_failed`, `build_stopped`, `transforms_stopped`, ... */
  errors: BuildIssue[];
  /** `template_missing`, `route_placeholder_missing`, `undefined_variable` (validate builds: template, line, variable), ... */
  warnings: BuildIssue[];
  files: BuildFile[];
  deploy: DeployResult | null;
  /**
   * the new version is what the target serves now: true for a committed build with `activate`
   * (the default); false for a build committed with `activate: false`, a validate build and a
   * failed one
   */
  live: boolean;
  /** the manifest recorded for the next incremental build (null for validate and failed builds) */
  manifest: BuildManifest | null;
}

/** What every stage reads of the options, with the defaults filled in. */
interface CommonSettings {
  buildId: string;
  env: string;
  mediaBaseUrl: string | null;
  /** the channels the build emits (all when none were given) */
  channels: ReadonlySet<OutputChannel>;
  workers: number;
  pool: RenderPool | null;
  limits: RenderLimits;
  serveCheckUrl: string | null;
  /** see {@link BuildOptions.manifestWrittenOnly} */
  manifestWrittenOnly: boolean;
  autoThreshold: number | undefined;
  auditHead: AuditHeadAnchor | null;
  signal: AbortSignal | undefined;
  progress: (progress: BuildProgress) => void;
  now: () => Date;
  /** `performance.now()` when the build started */
  started: number;
}

/** A build that renders in memory and writes nothing: it has no target and no cache. */
export interface ValidateSettings extends CommonSettings {
  mode: 'validate';
  target: null;
  cache: null;
}

/** A build that deploys: it has a target, and a cache when the caller keeps one. */
export interface DeploySettings extends CommonSettings {
  mode: Exclude<BuildMode, 'validate'>;
  target: DeployTarget;
  cache: BuildCache | null;
  /** the previous manifest the caller gave (undefined: the target's live one) */
  previous: BuildManifest | null | undefined;
  /** the commit makes the new version live */
  activate: boolean;
}

export type BuildSettings = ValidateSettings | DeploySettings;

/** Every output channel, in a fixed order. */
export const ALL_CHANNELS: readonly OutputChannel[] = ['pages', 'feeds', 'sitemap', 'search'];

function newBuildId(now: Date): string {
  return sortableId('b', now, randomBytes(3).toString('hex'));
}

/**
 * The options with their defaults; throws `validation_failed` for a deploying build without a
 * target, and `invalid_deploy_options` for `activate: false` on a target that keeps no versions.
 */
export function settingsOf(options: BuildOptions): BuildSettings {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const common: CommonSettings = {
    buildId: options.buildId ?? newBuildId(now()),
    env: options.env ?? 'dev',
    mediaBaseUrl: options.mediaBaseUrl ?? null,
    channels: new Set(
      options.outputChannels && options.outputChannels.length > 0 ? options.outputChannels : ALL_CHANNELS,
    ),
    workers: options.workers ?? Math.min(2, availableParallelism()),
    pool: options.pool ?? null,
    limits: options.limits ?? {},
    serveCheckUrl: options.serveCheckUrl ?? null,
    manifestWrittenOnly: options.manifestWrittenOnly === true,
    autoThreshold: options.autoThreshold,
    auditHead: options.auditHead ?? null,
    signal: options.signal,
    progress: options.onProgress ?? (() => {}),
    now,
    started,
  };
  const mode = options.mode ?? 'incremental';
  if (mode === 'validate') {
    // a validate build reports the variables templates read without a value
    const limits = { ...common.limits, reportUndefined: common.limits.reportUndefined ?? true };
    return { ...common, limits, mode, target: null, cache: null };
  }
  if (!options.target) {
    throw TrellisError.of('validation_failed', {
      detail: 'a deploy target is required unless mode is validate',
    });
  }
  const { target } = options;
  const activate = options.activate ?? true;
  if (!activate && typeof target.activate !== 'function') {
    throw TrellisError.of('invalid_deploy_options', {
      target: target.name,
      detail:
        'it keeps no versions it could make live later, so it cannot build one that is not live (activate: false)',
    });
  }
  const cache = options.cache !== undefined ? options.cache : (options.pool?.cache ?? null);
  return { ...common, mode, target, cache, previous: options.previous, activate };
}
