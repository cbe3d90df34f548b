import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { BuildManifest, DependencyReader, ManifestArtifact } from '@trelliscms/core';
import { chooseBuildMode, contentHash, impactedArtifacts, TrellisError } from '@trelliscms/core';
import { serveCheck } from './deploy/serve-check';
import type { DeployResult, DeploySession, DeployTarget } from './deploy/types';
import { miniSearchBrowserBuild, SEARCH_SCRIPT } from './emit/search-client';
import { buildShardIndex, planSearchShards, searchDocWithHash, searchManifest } from './emit/search-index';
import { renderSitemap } from './emit/sitemap';
import type { LiquidLimits } from './liquid/create-liquid';
import { relativeUrl } from './liquid/filters';
import { type ArtifactSpec, type BuildIssue, planArtifacts } from './plan/plan-artifacts';
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
import type { ContentSource } from './source/content-source';
import { itemHash } from './source/item-hash';
import { SnapshotSource } from './source/snapshot-source';
import { currentQueryHash, graphHashOf } from './source/tracking-reader';

const TRAVERSE_PREFIX = '{"kind":"traverse"';

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

/** The outcome of a build (spec §2 BuildResult, plus what a caller needs to show and store). */
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
  const plan = planArtifacts({ snapshot, source, env });
  const errors: BuildIssue[] = [...plan.errors];
  const warnings: BuildIssue[] = [...plan.warnings];
  progress({ phase: 'plan', done: plan.artifacts.length, total: plan.artifacts.length });
  const globalHash = globalHashOf(input, env, mediaBaseUrl);
  const graphHash = graphHashOf(source);

  // Which pages to render.
  let previous: BuildManifest | null = null;
  if (mode === 'incremental' || mode === 'auto') {
    previous = options.previous !== undefined ? options.previous : ((await target?.liveManifest()) ?? null);
  }
  const compatible = previous !== null && previous.globalHash === globalHash && previous.env === env;
  let effectiveMode: BuildResult['effectiveMode'] = mode === 'validate' ? 'validate' : 'full';
  let toRender: ArtifactSpec[] = plan.artifacts;
  let carried: ManifestArtifact[] = [];
  let removed: string[] = [];
  if (compatible && previous) {
    const templateHashes = new Map(
      snapshot.templates.filter((t) => t.enabled !== false).map((t) => [t.name, hashText(t.content)]),
    );
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
          hash = currentQueryHash(key, source, plan.urls);
          queryCache.set(key, hash);
        }
        return hash;
      },
    };
    const pages = previous.artifacts.filter((a) => a.key.startsWith('item:') || a.key.startsWith('route:'));
    const impacted = impactedArtifacts({ previous: pages, planned: plan.artifacts, reader });
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
    }
  }

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

  // Render.
  let rendered: WorkerArtifact[];
  const limits = options.limits ?? {};
  const urls = Object.fromEntries(plan.urls);
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
      rendered = options.pool ? await options.pool.render(run) : await renderInWorkers({ ...run, workers });
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

  // Emit: sitemap and search index.
  progress({ phase: 'emit', done: 0, total: 1 });
  const publicUrl = snapshot.site.publicUrl ?? null;
  const extras: Array<{ key: string; file: string; content: string; deps?: ManifestArtifact['deps'] }> = [];
  const extraCarried: ManifestArtifact[] = [];
  const itemsById = new Map(snapshot.items.map((item) => [item.id, item]));
  const sitemapEntries = plan.artifacts
    .filter((a) => (a.kind === 'route' ? a.route.kind !== 'redirect' : !a.stub))
    .map((a) => ({
      path: a.path,
      lastmod: a.kind === 'item' ? (itemsById.get(a.itemId)?.updatedAt ?? null) : null,
    }));
  extras.push({
    key: 'file:sitemap.xml',
    file: 'sitemap.xml',
    content: renderSitemap({ entries: sitemapEntries, publicUrl }),
  });

  const emission = snapshot.site.searchEmission ?? 'bm25';
  if (emission !== 'none') {
    const types = new Map(snapshot.types.map((type) => [type.name, type]));
    const docs = plan.artifacts.flatMap((a) =>
      a.kind === 'item' && !a.stub
        ? [
            searchDocWithHash(
              itemsById.get(a.itemId)!,
              types.get(itemsById.get(a.itemId)!.type),
              relativeUrl(a.path, { publicUrl }),
            ),
          ]
        : [],
    );
    const shards = planSearchShards(docs);
    const withVectors = emission === 'bm25+vector';
    const before = new Map(
      (compatible && effectiveMode === 'incremental' ? previous!.artifacts : []).map((a) => [a.key, a]),
    );
    for (const shard of shards) {
      const key = `search:${shard.shard}`;
      const file = `search/index-${shard.shard}.json`;
      const deps = { items: {}, templates: {}, queries: { docs: shard.docsHash } };
      const old = before.get(key);
      if (old && old.file === file && old.deps.queries.docs === shard.docsHash) extraCarried.push(old);
      else extras.push({ key, file, content: buildShardIndex(shard.docs), deps });
      if (withVectors) {
        const vectors: Record<string, number[]> = {};
        for (const doc of shard.docs) {
          const embedding = itemsById.get(doc.id)?.embedding;
          if (embedding && embedding.length > 0) vectors[doc.url] = embedding;
        }
        const vkey = `search-vectors:${shard.shard}`;
        const vfile = `search/vectors-${shard.shard}.json`;
        const vold = before.get(vkey);
        if (vold && vold.file === vfile && vold.deps.queries.docs === shard.docsHash) extraCarried.push(vold);
        else extras.push({ key: vkey, file: vfile, content: JSON.stringify(vectors), deps });
      }
    }
    extras.push({
      key: 'file:search/manifest.json',
      file: 'search/manifest.json',
      content: searchManifest({ shards: shards.length, vectors: withVectors }),
    });
    extras.push({ key: 'file:search/search.js', file: 'search/search.js', content: SEARCH_SCRIPT });
    extras.push({
      key: 'file:search/minisearch.js',
      file: 'search/minisearch.js',
      content: miniSearchBrowserBuild(),
    });
  }

  const files: BuildFile[] = [
    ...rendered
      .filter((r) => r.error === undefined)
      .map((r) => ({ key: r.key, file: r.file, bytes: r.bytes })),
    ...carried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
    ...extraCarried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
    ...extras.map((e) => ({ key: e.key, file: e.file, bytes: Buffer.byteLength(e.content) })),
  ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

  if (mode === 'validate' || !session) {
    return finish({ artifacts: files.length, files });
  }
  if (errors.length > 0) {
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
  const artifacts: ManifestArtifact[] = [
    ...rendered.map((r) => ({ key: r.key, file: r.file, hash: r.hash, bytes: r.bytes, deps: r.deps })),
    ...carried,
    ...extraCarried,
    ...extras.map((e) => ({
      key: e.key,
      file: e.file,
      hash: hashText(e.content),
      bytes: Buffer.byteLength(e.content),
      deps: e.deps ?? { items: {}, templates: {}, queries: {} },
    })),
  ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
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
  const live = previous ?? (mode === 'full' ? await target!.liveManifest() : null);
  const liveFiles = new Map((live?.artifacts ?? []).map((a) => [a.file, a.hash]));
  const newFiles = new Set(artifacts.map((a) => a.file));
  const changed = artifacts.filter((a) => liveFiles.get(a.file) !== a.hash);
  const gone = [...liveFiles.keys()].filter((file) => !newFiles.has(file));
  for (const file of removed) if (!gone.includes(file) && !newFiles.has(file)) gone.push(file);
  const committed = await session.commit({ manifest, removed: gone });
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
  return finish({ artifacts: files.length, files, deploy, manifest });
}

async function renderInProcess(params: {
  specs: readonly ArtifactSpec[];
  snapshot: Snapshot;
  env: string;
  urls: Record<string, string>;
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
