import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { BuildManifest, DependencyReader, ManifestArtifact } from '@trelliscms/core';
import { chooseBuildMode, contentHash, depsChanged, impactedArtifacts, TrellisError } from '@trelliscms/core';
import { serveCheck } from './deploy/serve-check';
import type { DeployResult, DeploySession, DeployTarget } from './deploy/types';
import { miniSearchBrowserBuild, SEARCH_SCRIPT } from './emit/search-client';
import {
  buildShardIndex,
  type SearchDoc,
  searchDocWithHash,
  searchManifest,
  searchShard,
  searchShardCount,
  shardOf,
} from './emit/search-index';
import { renderSitemap } from './emit/sitemap';
import type { LiquidLimits } from './liquid/create-liquid';
import { relativeUrl } from './liquid/filters';
import {
  type BuildCache,
  type BuildState,
  cacheFor,
  edgeListOf,
  type ItemEntry,
  indexArtifact,
  indexManifest,
  isPageKey,
  sameEdges,
  unindexArtifact,
} from './plan/build-cache';
import { ListIndex, type SortedList } from './plan/list-index';
import {
  type ArtifactSpec,
  type BuildIssue,
  type BuildPlan,
  planArtifacts,
  replan,
  templatesKey,
} from './plan/plan-artifacts';
import { applyTransforms, type TransformError } from './render/apply-transforms';
import {
  RenderAbortedError,
  type RenderPool,
  renderInWorkers,
  type WorkerLimits,
} from './render/render-pool';
import { hashText, Renderer } from './render/renderer';
import type { WorkerArtifact } from './render/worker-protocol';
import { assertSnapshot, isSnapshot } from './snapshot/read-snapshot';
import type { Snapshot } from './snapshot/types';
import type { ContentSource, ListQuery } from './source/content-source';
import { itemHash } from './source/item-hash';
import { isVisibleIn, SnapshotSource } from './source/snapshot-source';
import { currentQueryHash, graphHashOf, type QuerySpec, resultHash } from './source/tracking-reader';

const TRAVERSE_PREFIX = '{"kind":"traverse"';
const LIST_PREFIX = '{"kind":"list"';

/** Bumped when the builder's output for the same input changes: forces full builds. */
export const BUILDER_OUTPUT_VERSION = 1;

export type BuildMode = 'full' | 'incremental' | 'auto' | 'validate';

/** Progress of a build, for a progress display. */
export interface BuildProgress {
  phase: 'plan' | 'render' | 'emit' | 'deploy';
  done: number;
  total: number;
}

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
   * what it renders; default: the cache of `pool` when there is one, else none. null: none
   */
  cache?: BuildCache | null;
  /** render limits: liquidjs's (`renderTimeMs`, `memoryBytes`, `parseChars`), the workers' (`memoryMb`, `stallTimeoutMs`), `maxPageBytes` */
  limits?: LiquidLimits & WorkerLimits & { maxPageBytes?: number };
  /** base URL for `media_url` of `/media/...` paths */
  mediaBaseUrl?: string | null;
  /** probe this URL after deploying (the result's `deploy.serveCheck`) */
  serveCheckUrl?: string | null;
  /** `auto` picks a full build when more than this share of pages changed; default 0.3 */
  autoThreshold?: number;
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
  effectiveMode: 'full' | 'incremental' | 'validate';
  /** files in the build (pages, listings, sitemap, search index) */
  artifacts: number;
  /** pages rendered by this build */
  rendered: number;
  /** keys of the pages rendered (`item:<id>`, `route:<path>#<page>`) */
  renderedKeys: string[];
  /** pages carried over unchanged from the previous build */
  carried: number;
  durationMs: number;
  transformErrors: TransformError[];
  /** `route_collision`, `template_missing`, `render_failed`, `build_stopped`, ... */
  errors: BuildIssue[];
  warnings: BuildIssue[];
  files: BuildFile[];
  deploy: DeployResult | null;
  /** the manifest recorded for the next incremental build (null for validate and failed builds) */
  manifest: BuildManifest | null;
}

function newBuildId(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 17);
  return `b${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The hash of everything that, when it changes, makes every page suspect: a full build follows. */
export function globalHashOf(snapshot: Snapshot, env: string, mediaBaseUrl: string | null): string {
  return contentHash({
    builder: BUILDER_OUTPUT_VERSION,
    env,
    mediaBaseUrl,
    site: snapshot.site,
    types: snapshot.types,
    transforms: snapshot.transforms ?? [],
    routes: snapshot.routes ?? [],
    views: snapshot.views ?? [],
  });
}

/**
 * Builds a site: snapshot → transforms → plan → render (worker threads) → emit (pages,
 * listings, `sitemap.xml`, search index) → deploy. Template and transform problems are
 * reported in the result, never thrown; only bad input (an invalid snapshot or options) throws
 * a `TrellisError`. The same snapshot gives byte-identical pages wherever it is built.
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const now = options.now ?? (() => new Date());
  const env = options.env ?? 'dev';
  const mode = options.mode ?? 'incremental';
  const buildId = options.buildId ?? newBuildId(now());
  const mediaBaseUrl = options.mediaBaseUrl ?? null;
  const progress = options.onProgress ?? (() => {});
  const target = options.target ?? null;
  if (mode !== 'validate' && !target) {
    throw TrellisError.of('validation_failed', {
      detail: 'a deploy target is required unless mode is validate',
    });
  }

  const raw = isSnapshot(options.source) ? options.source : await options.source.snapshot();
  const input = assertSnapshot(raw);
  const { snapshot, errors: transformErrors } = applyTransforms({ snapshot: input, env });
  const source = new SnapshotSource({ snapshot, env });
  const globalHash = globalHashOf(input, env, mediaBaseUrl);

  // The cache, and its state only when it describes the previous build.
  const requested =
    options.cache !== undefined ? options.cache : options.pool ? cacheFor(options.pool) : null;
  const cache = requested && mode !== 'validate' ? requested : null;
  const templateHashes = new Map(
    snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, hashText(t.content)]),
  );
  // Transformed fields are a function of the item, the transforms (in the global hash) and the
  // templates a transform renders; item hashes describe the item before transforms. So with
  // transforms, a template change makes nothing of the cache reusable.
  const transformKey =
    snapshot === input ? '' : [...templateHashes].map(([name, hash]) => `${name}=${hash}`).join('\n');
  if (cache && cache.transformKey !== transformKey) {
    cache.routes.clear();
    cache.transformKey = transformKey;
    cache.state = null;
  }
  const state = cache?.state ?? null;

  let previous: BuildManifest | null = null;
  if (mode === 'incremental' || mode === 'auto') {
    if (options.previous !== undefined) previous = options.previous;
    else {
      // The live build is the one the cache describes: its manifest need not be read again.
      const head = state && target?.liveManifestHead ? await target.liveManifestHead() : null;
      previous =
        head &&
        state &&
        head.buildId === state.manifest.buildId &&
        head.createdAt === state.manifest.createdAt
          ? state.manifest
          : ((await target?.liveManifest()) ?? null);
    }
  }
  const compatible = previous !== null && previous.globalHash === globalHash && previous.env === env;
  const prior =
    state && compatible && state.manifest === previous && state.env === env && state.globalHash === globalHash
      ? state
      : null;

  // What changed since the prior build: content (hash, updatedAt, type, visibility), then URLs.
  const items = new Map<string, ItemEntry>();
  const contentChanged = new Set<string>();
  const changedTypes = new Set<string>();
  let membershipChanged = false;
  if (cache) {
    let added = 0;
    for (const item of snapshot.items) {
      if (!isVisibleIn(item, env)) continue;
      const hash = itemHash(item);
      const updatedAt = item.updatedAt ?? null;
      const before = prior?.items.get(item.id);
      // an unchanged item keeps its entry (entries are replaced, never changed, once recorded)
      if (before && before.hash === hash && before.type === item.type && before.updatedAt === updatedAt) {
        items.set(item.id, before);
        continue;
      }
      if (!before && !items.has(item.id)) added++;
      items.set(item.id, { hash, type: item.type, updatedAt, url: before?.url ?? '' });
      if (!prior) continue;
      if (!before) membershipChanged = true;
      contentChanged.add(item.id);
      changedTypes.add(item.type);
      if (before) changedTypes.add(before.type);
    }
    // every prior item still here (each id met once): none went
    if (prior && items.size - added !== prior.items.size) {
      for (const [id, before] of prior.items) {
        if (items.has(id)) continue;
        membershipChanged = true;
        contentChanged.add(id);
        changedTypes.add(before.type);
      }
    }
  }
  const lists = cache
    ? new ListIndex({ source, previous: prior?.lists, changed: contentChanged, changedTypes })
    : null;
  const edgesSame = prior !== null && sameEdges(prior.edges, snapshot.edges);
  // The prior build's plan, when nothing that places pages changed (then no URL changed either).
  const plansKey = cache ? templatesKey(snapshot.templates) : '';
  const replanned =
    prior?.plan &&
    prior.plan.templatesKey === plansKey &&
    edgesSame &&
    !membershipChanged &&
    items.size === snapshot.items.length
      ? replan({
          previous: prior.plan.plan,
          snapshot,
          source,
          lists: lists!,
          routes: cache!.routes,
          changed: contentChanged,
          changedTypes,
        })
      : null;
  const plan = replanned ?? planArtifacts({ snapshot, source, env, lists, routes: cache?.routes });
  const errors: BuildIssue[] = [...plan.errors];
  const warnings: BuildIssue[] = [...plan.warnings];
  progress({ phase: 'plan', done: plan.artifacts.length, total: plan.artifacts.length });
  const depChanged = new Set(contentChanged);
  const depTypes = new Set(changedTypes);
  const urlTypes = new Set<string>();
  if (!replanned) {
    for (const [id, entry] of items) {
      const url = plan.urls.get(id) ?? '';
      if (entry.url !== url) {
        if (prior?.items.get(id) === entry) items.set(id, { ...entry, url });
        else entry.url = url;
      }
      if (!prior || depChanged.has(id) || prior.items.get(id)?.url === url) continue;
      depChanged.add(id);
      depTypes.add(entry.type);
      urlTypes.add(entry.type);
    }
  }
  const graphHash = prior && edgesSame && !membershipChanged ? prior.graphHash : graphHashOf(source);
  // Which pages to render.
  let effectiveMode: BuildResult['effectiveMode'] = mode === 'validate' ? 'validate' : 'full';
  let toRender: ArtifactSpec[] = plan.artifacts;
  let carried: ManifestArtifact[] = [];
  let removed: string[] = [];
  // planned keys that are new or at another file than before, and the removed files (page structure changes)
  let structural: string[] = [];
  if (compatible && previous) {
    const queryCache = new Map<string, string>();
    const itemDeps = new Map<string, string>();
    const graphUnchanged = previous.graphHash === graphHash;
    const reader: DependencyReader = {
      itemHash: (id) => {
        let hash = itemDeps.get(id);
        if (hash === undefined) {
          const item = source.item(id);
          hash = item ? `${itemHash(item)}|${plan.urls.get(id) ?? ''}` : '';
          itemDeps.set(id, hash);
        }
        return hash;
      },
      templateHash: (name) => templateHashes.get(name) ?? '',
      queryHash: (key, recorded) => {
        if (graphUnchanged && key.startsWith(TRAVERSE_PREFIX)) return recorded;
        let hash = queryCache.get(key);
        if (hash === undefined) {
          hash =
            (lists && key.startsWith(LIST_PREFIX) ? listQueryHash(key, lists, plan.urls) : null) ??
            currentQueryHash(key, source, plan.urls);
          queryCache.set(key, hash);
        }
        return hash;
      },
    };
    const impacted = prior
      ? impactedFromState({
          prior,
          planned: plan.artifacts,
          reader,
          depChanged,
          depTypes,
          templateHashes,
          graphUnchanged,
          lists: lists!,
          urlTypes,
        })
      : {
          ...impactedArtifacts({
            previous: previous.artifacts.filter((a) => isPageKey(a.key)),
            planned: plan.artifacts,
            reader,
          }),
          structural: null,
        };
    const chosen =
      mode === 'auto'
        ? chooseBuildMode({
            hasCompatiblePrevious: true,
            toRender: impacted.render.length,
            planned: plan.artifacts.length,
            threshold: options.autoThreshold,
          })
        : 'incremental';
    if (chosen === 'incremental') {
      effectiveMode = 'incremental';
      const wanted = new Set(impacted.render);
      toRender = plan.artifacts.filter((a) => wanted.has(a.key));
      carried = impacted.carry;
      removed = impacted.removed;
      structural = impacted.structural ?? [];
    }
  }
  // The prior build's state serves emitting and deploying only when this build extends it.
  const extending = prior !== null && effectiveMode === 'incremental' ? prior : null;

  const base: Omit<BuildResult, 'ok' | 'durationMs' | 'files' | 'deploy' | 'manifest' | 'artifacts'> = {
    buildId,
    env,
    mode,
    effectiveMode,
    rendered: 0,
    renderedKeys: [],
    carried: carried.length,
    transformErrors,
    errors,
    warnings,
  };
  const finish = (rest: Partial<BuildResult>): BuildResult => ({
    ...base,
    ok: errors.length === 0,
    artifacts: 0,
    files: [],
    deploy: null,
    manifest: null,
    ...rest,
    durationMs: Math.round(performance.now() - started),
  });

  let session: DeploySession | null = null;
  if (mode !== 'validate') session = await target!.begin({ buildId });
  const outDir = session?.dir ?? null;

  // Render, and emit the sitemap and search index (they need no rendered page).
  const emit = () =>
    emitExtras({
      snapshot,
      source,
      plan,
      items,
      previous: compatible && effectiveMode === 'incremental' ? previous : null,
      prior: extending,
      contentChanged,
      depChanged,
      structural,
    });
  let emitted: ReturnType<typeof emit> | null = null;
  let rendered: WorkerArtifact[];
  const limits = options.limits ?? {};
  const urls = plan.urls;
  const workers = options.workers ?? Math.min(2, availableParallelism());
  progress({ phase: 'render', done: 0, total: toRender.length });
  try {
    if (workers <= 0) {
      rendered = await renderInProcess({
        specs: toRender,
        snapshot,
        env,
        urls,
        limits,
        mediaBaseUrl,
        outDir,
        progress,
      });
    } else {
      const run = {
        specs: toRender,
        snapshot,
        env,
        urls,
        limits,
        mediaBaseUrl,
        outDir,
        signal: options.signal,
        onProgress: (done: number) => progress({ phase: 'render', done, total: toRender.length }),
      };
      const rendering = options.pool ? options.pool.render(run) : renderInWorkers({ ...run, workers });
      // Emit while the workers render: they have their first chunks queued once the pool started.
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        emitted = emit();
      } catch (error) {
        rendering.catch(() => {});
        throw error;
      }
      rendered = await rendering;
    }
  } catch (error) {
    await session?.abort();
    if (!(error instanceof RenderAbortedError)) throw error;
    errors.push({ code: 'build_stopped', message: error.message });
    return finish({ ok: false });
  }
  for (const result of rendered) {
    if (result.error !== undefined) {
      errors.push({
        code: 'render_failed',
        message: `${result.key}: ${result.error}`,
        key: result.key,
        path: result.file,
        template: result.template,
      });
    }
  }
  base.renderedKeys = rendered.filter((r) => r.error === undefined).map((r) => r.key);
  base.rendered = base.renderedKeys.length;

  progress({ phase: 'emit', done: 0, total: 1 });
  emitted ??= emit();
  const { extras, extraCarried } = emitted;
  const publicUrl = snapshot.site.publicUrl ?? null;

  if (mode === 'validate' || !session || errors.length > 0) {
    const files: BuildFile[] = [
      ...rendered
        .filter((r) => r.error === undefined)
        .map((r) => ({ key: r.key, file: r.file, bytes: r.bytes })),
      ...carried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
      ...extraCarried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
      ...extras.map((e) => ({ key: e.key, file: e.file, bytes: Buffer.byteLength(e.content) })),
    ].sort(byFile);
    if (mode === 'validate' || !session) return finish({ artifacts: files.length, files });
    await session.abort();
    return finish({ ok: false, artifacts: files.length, files });
  }

  // Deploy.
  progress({ phase: 'deploy', done: 0, total: 1 });
  const deployStarted = performance.now();
  const made = new Set<string>();
  for (const extra of extras) {
    const path = join(session.dir, extra.file);
    const dir = dirname(path);
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true });
      made.add(dir);
    }
    await writeFile(path, extra.content);
  }
  await session.carry([...carried, ...extraCarried].map((a) => a.file));
  const fresh: ManifestArtifact[] = [
    ...rendered.map((r) => ({ key: r.key, file: r.file, hash: r.hash, bytes: r.bytes, deps: r.deps })),
    ...extras.map((e) => ({
      key: e.key,
      file: e.file,
      hash: e.hash,
      bytes: Buffer.byteLength(e.content),
      deps: e.deps ?? { items: {}, templates: {}, queries: {} },
    })),
  ];
  const artifacts = extending
    ? mergeByFile(extending.manifest.artifacts, new Set([...carried, ...extraCarried]), fresh)
    : [...carried, ...extraCarried, ...fresh].sort(byFile);
  const manifest: BuildManifest = {
    format: 'trellis-build-manifest',
    version: 1,
    buildId,
    env,
    globalHash,
    graphHash,
    createdAt: now().toISOString(),
    artifacts,
  };
  let changed: ManifestArtifact[];
  let gone: string[];
  if (extending) {
    // Carried artifacts are the previous ones, unchanged: only fresh ones can differ.
    changed = fresh.filter((a) => extending.fileHash.get(a.file) !== a.hash);
    const freshFiles = new Set(fresh.map((a) => a.file));
    gone = removed.filter((file) => !freshFiles.has(file));
    const kept = new Set([...extraCarried, ...fresh].map((a) => a.key));
    for (const key of extending.extraKeys) {
      const artifact = extending.byKey.get(key)!;
      if (!kept.has(key) && !freshFiles.has(artifact.file) && !gone.includes(artifact.file))
        gone.push(artifact.file);
    }
  } else {
    const live = previous ?? (mode === 'full' ? await target!.liveManifest() : null);
    const liveFiles = new Map((live?.artifacts ?? []).map((a) => [a.file, a.hash]));
    const newFiles = new Set(artifacts.map((a) => a.file));
    changed = artifacts.filter((a) => liveFiles.get(a.file) !== a.hash);
    gone = [...liveFiles.keys()].filter((file) => !newFiles.has(file));
    for (const file of removed) if (!gone.includes(file) && !newFiles.has(file)) gone.push(file);
  }
  const committed = await session.commit({ manifest, removed: gone, base: extending?.manifest ?? previous });
  if (cache) {
    cache.state = nextState({
      extending,
      manifest,
      env,
      globalHash,
      graphHash,
      edgesSame,
      snapshot,
      items,
      templateHashes,
      lists: lists!,
      changedTypes,
      fresh,
      extraCarried,
      structural,
      search: emitted.search,
      plan,
      templatesKey: plansKey,
    });
  }
  const deploy: DeployResult = {
    ok: true,
    bucket: committed.bucket,
    keyPrefix: committed.keyPrefix,
    publicUrl,
    filesUploaded: changed.length,
    filesDeleted: gone.length,
    bytes: changed.reduce((sum, a) => sum + a.bytes, 0),
    durationMs: Math.round(performance.now() - deployStarted),
    serveCheck: options.serveCheckUrl ? await serveCheck(options.serveCheckUrl) : null,
  };
  if (deploy.serveCheck && !deploy.serveCheck.ok) deploy.ok = false;
  progress({ phase: 'deploy', done: 1, total: 1 });
  const files: BuildFile[] = artifacts.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes }));
  return finish({ artifacts: files.length, files, deploy, manifest });
}

function byFile(a: { file: string }, b: { file: string }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/** `sorted` (by file) without the artifacts not in `keep`, with `fresh` merged in by file. */
function mergeByFile(
  sorted: readonly ManifestArtifact[],
  keep: ReadonlySet<ManifestArtifact>,
  fresh: ManifestArtifact[],
): ManifestArtifact[] {
  const added = [...fresh].sort(byFile);
  const out: ManifestArtifact[] = [];
  let j = 0;
  for (const artifact of sorted) {
    if (!keep.has(artifact)) continue;
    while (j < added.length && added[j]!.file < artifact.file) out.push(added[j++]!);
    out.push(artifact);
  }
  while (j < added.length) out.push(added[j++]!);
  return out;
}

/** The current hash of a recorded list query, from the list index (null: not a list key). */
function listQueryHash(key: string, lists: ListIndex, urls: ReadonlyMap<string, string>): string | null {
  let spec: QuerySpec;
  try {
    spec = JSON.parse(key) as QuerySpec;
  } catch {
    return null;
  }
  if (spec.kind !== 'list') return null;
  const result = lists.list(spec.query);
  return resultHash(result.items, result.total, urls);
}

const listQueries = new Map<string, ListQuery | null>();

/** The query of a recorded list query key (null when the key cannot be read). */
function listQueryOf(key: string): ListQuery | null {
  let query = listQueries.get(key);
  if (query === undefined) {
    try {
      const parsed = (JSON.parse(key) as { query?: ListQuery }).query;
      query = parsed && typeof parsed.type === 'string' ? parsed : null;
    } catch {
      query = null;
    }
    if (listQueries.size > 50_000) listQueries.clear();
    listQueries.set(key, query);
  }
  return query;
}

/**
 * Incremental planning from the prior build's reverse index: only pages that read a changed
 * item or template, or ran a query whose result may have changed, have their recorded
 * dependencies compared; every other page of the prior build is carried as it is. Gives the
 * same answer as comparing every page (see `impactedArtifacts`), because every page of the
 * prior manifest recorded the hashes the prior build's content had.
 */
function impactedFromState(params: {
  prior: BuildState;
  planned: readonly ArtifactSpec[];
  reader: DependencyReader;
  depChanged: ReadonlySet<string>;
  depTypes: ReadonlySet<string>;
  templateHashes: ReadonlyMap<string, string>;
  graphUnchanged: boolean;
  lists: ListIndex;
  /** types of items whose URL changed without a content change */
  urlTypes: ReadonlySet<string>;
}): { render: string[]; carry: ManifestArtifact[]; removed: string[]; structural: string[] } {
  const { prior, planned, reader, depChanged, depTypes, templateHashes, graphUnchanged, lists, urlTypes } =
    params;
  const candidates = new Set<string>();
  const addAll = (keys: ReadonlySet<string> | undefined) => {
    if (keys) for (const key of keys) candidates.add(key);
  };
  for (const id of depChanged) addAll(prior.dependents.get(`i\n${id}`));
  for (const [name, hash] of templateHashes) {
    if (prior.templates.get(name) !== hash) addAll(prior.dependents.get(`t\n${name}`));
  }
  for (const name of prior.templates.keys()) {
    if (!templateHashes.has(name)) addAll(prior.dependents.get(`t\n${name}`));
  }
  if (depTypes.size > 0) {
    for (const [key, keys] of prior.queries.list) {
      const query = listQueryOf(key);
      if (query !== null && !depTypes.has(query.type)) continue;
      // a page of a list whose changed items stayed out of it (and no URL of the type changed) reads the same
      if (query !== null && !urlTypes.has(query.type) && !lists.pageMayDiffer(query)) continue;
      addAll(keys);
    }
  }
  if (!graphUnchanged) for (const keys of prior.queries.traverse.values()) addAll(keys);
  if (depChanged.size > 0) for (const keys of prior.queries.other.values()) addAll(keys);
  const render: string[] = [];
  const carry: ManifestArtifact[] = [];
  const structural: string[] = [];
  // prior pages planned again at the same file: when that is all of them, none was removed
  let kept = 0;
  for (const artifact of planned) {
    const before = prior.byKey.get(artifact.key);
    if (!before || before.file !== artifact.file) {
      render.push(artifact.key);
      structural.push(artifact.key);
      continue;
    }
    kept++;
    if (candidates.has(artifact.key) && depsChanged(before.deps, reader)) render.push(artifact.key);
    else carry.push(before);
  }
  const removed: string[] = [];
  if (kept !== prior.pages) {
    const plannedFiles = new Set(planned.map((a) => a.file));
    for (const [key, artifact] of prior.byKey) {
      if (!isPageKey(key) || plannedFiles.has(artifact.file)) continue;
      removed.push(artifact.file);
      structural.push(key);
    }
  }
  return { render, carry, removed, structural };
}

async function renderInProcess(params: {
  specs: readonly ArtifactSpec[];
  snapshot: Snapshot;
  env: string;
  urls: ReadonlyMap<string, string>;
  limits: LiquidLimits & { maxPageBytes?: number };
  mediaBaseUrl: string | null;
  outDir: string | null;
  progress: (progress: BuildProgress) => void;
}): Promise<WorkerArtifact[]> {
  const renderer = new Renderer({
    snapshot: params.snapshot,
    env: params.env,
    urls: params.urls,
    limits: params.limits,
    maxPageBytes: params.limits.maxPageBytes,
    mediaBaseUrl: params.mediaBaseUrl,
  });
  const out: WorkerArtifact[] = [];
  for (const spec of params.specs) {
    const { html, ...rest } = renderer.render(spec);
    if (html !== undefined && params.outDir !== null) {
      const path = join(params.outDir, spec.file);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, html);
    }
    out.push(rest);
    if (out.length % 50 === 0)
      params.progress({ phase: 'render', done: out.length, total: params.specs.length });
  }
  return out;
}

type DocEntry = { dep: string; doc: SearchDoc; hash: string };

/** The search documents after a build: all of them, or the changes to the prior build's. */
type SearchUpdate =
  | { kind: 'all'; docs: Map<string, DocEntry>; members: Array<Set<string>> }
  | { kind: 'delta'; updates: Map<string, DocEntry | null>; members: Map<number, Set<string>> };

/** A file the build writes besides the pages. */
interface Extra {
  key: string;
  file: string;
  content: string;
  hash: string;
  deps?: ManifestArtifact['deps'];
}

// Hashes of the fixed files (search.js, minisearch.js), by content: they are the same string each build.
const fixedHashes = new Map<string, string>();
function fixedHash(content: string): string {
  let hash = fixedHashes.get(content);
  if (hash === undefined) {
    hash = hashText(content);
    if (fixedHashes.size > 16) fixedHashes.clear();
    fixedHashes.set(content, hash);
  }
  return hash;
}

/**
 * `sitemap.xml` and the search index. Building on a prior build (`prior`), the sitemap is
 * carried when no page appeared, moved or went and no page's `updatedAt` changed, and only
 * search shards holding a changed item are hashed (and rebuilt when their documents changed).
 */
function emitExtras(params: {
  snapshot: Snapshot;
  source: SnapshotSource;
  plan: { artifacts: readonly ArtifactSpec[] };
  items: ReadonlyMap<string, ItemEntry>;
  /** the previous manifest, when this build is incremental */
  previous: BuildManifest | null;
  prior: BuildState | null;
  contentChanged: ReadonlySet<string>;
  depChanged: ReadonlySet<string>;
  structural: readonly string[];
}): { extras: Extra[]; extraCarried: ManifestArtifact[]; search: SearchUpdate | null } {
  const { snapshot, source, plan, items, previous, prior, contentChanged, depChanged, structural } = params;
  const publicUrl = snapshot.site.publicUrl ?? null;
  const extras: Extra[] = [];
  const extraCarried: ManifestArtifact[] = [];
  const before: ReadonlyMap<string, ManifestArtifact> =
    prior?.byKey ??
    new Map((previous?.artifacts ?? []).filter((a) => !isPageKey(a.key)).map((a) => [a.key, a]));
  const offer = (extra: Omit<Extra, 'hash'>, hash: string) => {
    const old = before.get(extra.key);
    if (prior && old && old.file === extra.file && old.hash === hash) extraCarried.push(old);
    else extras.push({ ...extra, hash });
  };

  let sitemapDirty = prior === null || structural.length > 0;
  if (!sitemapDirty) {
    for (const id of contentChanged) {
      const now = items.get(id);
      const then = prior!.items.get(id);
      if (!now || !then || now.updatedAt !== then.updatedAt) {
        sitemapDirty = true;
        break;
      }
    }
  }
  const oldSitemap = before.get('file:sitemap.xml');
  if (!sitemapDirty && oldSitemap?.file === 'sitemap.xml') extraCarried.push(oldSitemap);
  else {
    const itemsById = new Map(snapshot.items.map((item) => [item.id, item]));
    const sitemapEntries = plan.artifacts
      .filter((a) => (a.kind === 'route' ? a.route.kind !== 'redirect' : !a.stub))
      .map((a) => ({
        path: a.path,
        lastmod: a.kind === 'item' ? (itemsById.get(a.itemId)?.updatedAt ?? null) : null,
      }));
    const content = renderSitemap({ entries: sitemapEntries, publicUrl });
    offer({ key: 'file:sitemap.xml', file: 'sitemap.xml', content }, hashText(content));
  }

  const emission = snapshot.site.searchEmission ?? 'bm25';
  if (emission === 'none') return { extras, extraCarried, search: null };
  const types = new Map(snapshot.types.map((type) => [type.name, type]));
  const makeDoc = (a: ArtifactSpec & { kind: 'item' }): DocEntry => {
    const entry = items.get(a.itemId);
    const dep = entry ? `${entry.hash}|${entry.url}` : '';
    const old = prior?.search?.docs.get(a.itemId);
    if (old && entry && old.dep === dep) return old;
    const item = source.item(a.itemId)!;
    const { doc, hash } = searchDocWithHash(item, types.get(item.type), relativeUrl(a.path, { publicUrl }));
    return { dep, doc, hash };
  };
  let docCount = 0;
  for (const a of plan.artifacts) if (a.kind === 'item' && !a.stub) docCount++;
  const count = searchShardCount(docCount);
  // Shards that may have changed (null: all), and what they hold now.
  let dirty: Set<number> | null = null;
  let search: SearchUpdate;
  const groups: Array<Array<{ doc: SearchDoc; hash: string }>> = Array.from({ length: count }, () => []);
  const delta = prior?.search && prior.search.members.length === count ? prior.search : null;
  if (delta) {
    // Building on the prior build: only items whose dependency hash or page changed can have
    // another document or shard; the rest of each shard is what the prior build recorded.
    const touched = new Set(depChanged);
    for (const key of structural) if (key.startsWith('item:')) touched.add(key.slice(5));
    const updates = new Map<string, DocEntry | null>();
    for (const a of plan.artifacts) {
      if (a.kind === 'item' && !a.stub && touched.has(a.itemId)) updates.set(a.itemId, makeDoc(a));
    }
    let size = delta.docs.size;
    for (const id of touched) {
      if (!updates.has(id)) updates.set(id, null);
      const had = delta.docs.has(id);
      const has = updates.get(id) !== null;
      if (had !== has) size += has ? 1 : -1;
    }
    if (size === docCount) {
      dirty = new Set();
      const members = new Map<number, Set<string>>();
      for (const id of touched) {
        const s = shardOf(id, count);
        dirty.add(s);
        let set = members.get(s);
        if (!set) {
          set = new Set(delta.members[s]);
          members.set(s, set);
        }
        if (updates.get(id)) set.add(id);
        else set.delete(id);
      }
      for (const [s, set] of members) {
        for (const id of set) groups[s]!.push(updates.get(id) ?? delta.docs.get(id)!);
      }
      search = { kind: 'delta', updates, members };
    }
  }
  search ??= (() => {
    const docs = new Map<string, DocEntry>();
    const members: Array<Set<string>> = Array.from({ length: count }, () => new Set());
    for (const a of plan.artifacts) {
      if (a.kind !== 'item' || a.stub) continue;
      const made = makeDoc(a);
      docs.set(a.itemId, made);
      const s = shardOf(a.itemId, count);
      members[s]!.add(a.itemId);
      groups[s]!.push(made);
    }
    dirty = null;
    return { kind: 'all', docs, members } as const;
  })();
  const withVectors = emission === 'bm25+vector';
  for (let s = 0; s < count; s++) {
    const key = `search:${s}`;
    const file = `search/index-${s}.json`;
    const vkey = `search-vectors:${s}`;
    const vfile = `search/vectors-${s}.json`;
    const old = before.get(key);
    const vold = before.get(vkey);
    if (dirty && !dirty.has(s)) {
      if (old?.file === file && (!withVectors || vold?.file === vfile)) {
        extraCarried.push(old);
        if (withVectors) extraCarried.push(vold!);
        continue;
      }
      // its files are missing from the prior build: make them from the recorded documents
      for (const id of delta!.members[s]!) groups[s]!.push(delta!.docs.get(id)!);
    }
    const shard = searchShard(s, groups[s]!);
    const deps = { items: {}, templates: {}, queries: { docs: shard.docsHash } };
    if (old && old.file === file && old.deps.queries.docs === shard.docsHash) extraCarried.push(old);
    else {
      const content = buildShardIndex(shard.docs);
      extras.push({ key, file, content, hash: hashText(content), deps });
    }
    if (withVectors) {
      const vectors: Record<string, number[]> = {};
      for (const doc of shard.docs) {
        const embedding = source.item(doc.id)?.embedding;
        if (embedding && embedding.length > 0) vectors[doc.url] = embedding;
      }
      if (vold && vold.file === vfile && vold.deps.queries.docs === shard.docsHash) extraCarried.push(vold);
      else {
        const content = JSON.stringify(vectors);
        extras.push({ key: vkey, file: vfile, content, hash: hashText(content), deps });
      }
    }
  }
  const manifestContent = searchManifest({ shards: count, vectors: withVectors });
  offer(
    { key: 'file:search/manifest.json', file: 'search/manifest.json', content: manifestContent },
    fixedHash(manifestContent),
  );
  offer(
    { key: 'file:search/search.js', file: 'search/search.js', content: SEARCH_SCRIPT },
    fixedHash(SEARCH_SCRIPT),
  );
  const miniSearch = miniSearchBrowserBuild();
  offer(
    { key: 'file:search/minisearch.js', file: 'search/minisearch.js', content: miniSearch },
    fixedHash(miniSearch),
  );
  return { extras, extraCarried, search };
}

/** The cache's state after a committed build: the prior one brought up to date, or a new one. */
function nextState(params: {
  extending: BuildState | null;
  manifest: BuildManifest;
  env: string;
  globalHash: string;
  graphHash: string;
  edgesSame: boolean;
  snapshot: Snapshot;
  items: Map<string, ItemEntry>;
  templateHashes: Map<string, string>;
  lists: ListIndex;
  changedTypes: ReadonlySet<string>;
  fresh: readonly ManifestArtifact[];
  /** prior artifacts carried into `manifest` (besides pages, which are carried by default) */
  extraCarried: readonly ManifestArtifact[];
  /** keys of prior pages that are not planned any more (or moved) */
  structural: readonly string[];
  search: SearchUpdate | null;
  plan: BuildPlan;
  templatesKey: string;
}): BuildState {
  const { extending, manifest, fresh } = params;
  let indexed: Pick<BuildState, 'byKey' | 'fileHash' | 'dependents' | 'queries' | 'pages' | 'extraKeys'>;
  if (extending) {
    // In place: the prior state is not used again once a build built on it is committed.
    const { byKey, fileHash, extraKeys } = extending;
    let pages = extending.pages;
    const freshKeys = new Set(fresh.map((a) => a.key));
    const keptExtras = new Set(params.extraCarried.map((a) => a.key));
    const drop = (key: string) => {
      const old = byKey.get(key);
      if (!old) return;
      unindexArtifact(extending, old);
      byKey.delete(key);
      if (fileHash.get(old.file) === old.hash) fileHash.delete(old.file);
      if (isPageKey(key)) pages--;
      else extraKeys.delete(key);
    };
    for (const key of params.structural) if (!freshKeys.has(key)) drop(key);
    for (const key of [...extraKeys]) if (!freshKeys.has(key) && !keptExtras.has(key)) drop(key);
    for (const artifact of fresh) drop(artifact.key);
    for (const artifact of fresh) {
      indexArtifact(extending, artifact);
      byKey.set(artifact.key, artifact);
      fileHash.set(artifact.file, artifact.hash);
      if (isPageKey(artifact.key)) pages++;
      else extraKeys.add(artifact.key);
    }
    indexed = {
      byKey,
      fileHash,
      dependents: extending.dependents,
      queries: extending.queries,
      pages,
      extraKeys,
    };
  } else indexed = indexManifest(manifest);
  const lists = new Map<string, SortedList>();
  if (extending) {
    for (const [key, list] of extending.lists) if (!params.changedTypes.has(list.type)) lists.set(key, list);
  }
  for (const [key, list] of params.lists.current) lists.set(key, list);
  let search: BuildState['search'] = null;
  const update = params.search;
  if (update?.kind === 'all') search = { docs: update.docs, members: update.members };
  else if (update?.kind === 'delta' && extending?.search) {
    search = extending.search;
    for (const [id, entry] of update.updates) {
      if (entry) search.docs.set(id, entry);
      else search.docs.delete(id);
    }
    for (const [shard, members] of update.members) search.members[shard] = members;
  }
  return {
    manifest,
    env: params.env,
    globalHash: params.globalHash,
    graphHash: params.graphHash,
    edges: extending && params.edgesSame ? extending.edges : edgeListOf(params.snapshot.edges),
    items: params.items,
    templates: params.templateHashes,
    ...indexed,
    lists,
    search,
    plan: { plan: params.plan, templatesKey: params.templatesKey },
  };
}
