import type { WriteSession } from '../deploy/types';
import { isRenderTimeLimit } from '../liquid/create-liquid';
import type { BuildPlan } from '../plan/plan-artifacts';
import { RenderAbortedError, renderInWorkers, timeLimitReason } from '../render/render-pool';
import { Renderer, rendersScripts } from '../render/renderer';
import type { RenderedPage, WorkerArtifact } from '../render/worker-protocol';
import { loadScriptRunner } from '../sandbox/script-runner';
import { DepsSpill } from './deps-spill';
import type { LoadedContent } from './load';
import type { BuildSettings } from './options';
import { pageThreadMinPages, pageWriteFailed, threadPageWriter } from './page-thread';
import type { SelectedPage } from './select-work';

/** The pages rendered, or why rendering stopped (the session is aborted then). */
export type RenderOutcome = { stopped: false; results: WorkerArtifact[] } | { stopped: true; reason: string };

/** Pages written at once through the session. */
const WRITES_IN_FLIGHT = 16;

/** Pages waiting to be written past which rendering waits for the writes (bounds memory). */
const QUEUED_PAGES_HIGH_WATER = 256;

/**
 * Hands pages to a write session as they come, a few writes at a time (rendering goes on
 * meanwhile). `add` answers a promise when the writes are behind (more than
 * {@link QUEUED_PAGES_HIGH_WATER} pages waiting): the renderer hands out no more work until it
 * settles, so pages never pile up in memory. `drain` waits for every page given and throws the
 * first failed write.
 */
export function pageWriter(session: WriteSession) {
  const queue: RenderedPage[] = [];
  let running = 0;
  let failure: { error: unknown } | null = null;
  let idle: Array<() => void> = [];
  let behind: Array<() => void> = [];
  const pump = () => {
    while (running < WRITES_IN_FLIGHT) {
      const page = queue.shift();
      if (!page) break;
      running++;
      session
        .writeFile(page.file, page.html)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => {
          running--;
          pump();
          if (failure || queue.length < QUEUED_PAGES_HIGH_WATER)
            for (const resolve of behind.splice(0)) resolve();
          if (running === 0 && queue.length === 0) for (const resolve of idle.splice(0)) resolve();
        });
    }
  };
  return {
    add(pages: readonly RenderedPage[]): Promise<void> | undefined {
      if (failure) return undefined;
      queue.push(...pages);
      pump();
      if (queue.length < QUEUED_PAGES_HIGH_WATER) return undefined;
      return new Promise<void>((resolve) => behind.push(resolve));
    },
    async drain(): Promise<void> {
      if (running > 0 || queue.length > 0) await new Promise<void>((resolve) => idle.push(resolve));
      idle = [];
      behind = [];
      if (failure) {
        throw pageWriteFailed(failure.error);
      }
    },
  };
}

/**
 * Stage 5, render: renders the selected pages on the render workers (the build's warm pool, or
 * workers of its own), or in this thread with `workers: 0`, and hands each page to the write
 * session. `meanwhile` runs once the workers have work queued (the build emits then).
 */
export async function render(params: {
  settings: BuildSettings;
  content: LoadedContent;
  plan: BuildPlan;
  work: readonly SelectedPage[];
  session: WriteSession | null;
  /** work for this thread while the workers render (the build emits); awaited before the outcome */
  meanwhile: () => Promise<unknown> | undefined;
}): Promise<RenderOutcome> {
  const { settings, content, session } = params;
  const { env, limits, mediaBaseUrl, progress } = settings;
  const specs = params.work.map((page) => page.artifact);
  const urls = params.plan.urls;
  // a session with a local page folder: the pages of a large build are written on a thread of
  // their own (synchronous calls, no libuv round trip per call), else through `writeFile`
  const writer = !session
    ? null
    : session.pageFolder !== undefined && specs.length >= pageThreadMinPages.value
      ? threadPageWriter(session.pageFolder, QUEUED_PAGES_HIGH_WATER)
      : pageWriter(session);
  const onPages = writer ? (pages: RenderedPage[]) => writer.add(pages) : undefined;
  progress({ phase: 'render', done: 0, total: specs.length });
  // each page's dependencies wait on disk while the workers render (null: kept in memory)
  const spill = settings.workers > 0 ? await DepsSpill.open() : null;
  // what `meanwhile` gave: settled before the session is aborted (it may write through it)
  let during: Promise<unknown> | undefined;
  try {
    let results: WorkerArtifact[];
    if (settings.workers <= 0) {
      const renderer = new Renderer({
        snapshot: content.snapshot,
        env,
        urls,
        limits,
        maxPageBytes: limits.maxPageBytes,
        mediaBaseUrl,
        lists: content.source.sharedLists(),
        ...(rendersScripts(content.snapshot) ? { runScript: await loadScriptRunner() } : {}),
      });
      results = [];
      for (const spec of specs) {
        const { html, ...rest } = renderer.render(spec);
        if (rest.error !== undefined && isRenderTimeLimit(rest.error)) {
          const page = { key: spec.key, template: rest.template ?? null, error: rest.error };
          throw new RenderAbortedError(timeLimitReason(page, limits.renderTimeMs));
        }
        if (html !== undefined) await onPages?.([{ file: spec.file, html }]);
        results.push(rest);
        if (results.length % 50 === 0)
          progress({ phase: 'render', done: results.length, total: specs.length });
      }
    } else {
      const run = {
        specs,
        snapshot: content.snapshot,
        env,
        urls,
        limits,
        mediaBaseUrl,
        lists: content.source.sharedLists(),
        onPages,
        ...(spill ? { spill } : {}),
        signal: settings.signal,
        onProgress: (done: number) => progress({ phase: 'render', done, total: specs.length }),
      };
      const { pool } = settings;
      const rendering = pool ? pool.render(run) : renderInWorkers({ ...run, workers: settings.workers });
      // Emit while the workers render: they have their first chunks queued once the pool started.
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        during = params.meanwhile();
      } catch (error) {
        rendering.catch(() => {});
        throw error;
      }
      // a failure of either is thrown once both have settled
      during?.catch(() => {});
      try {
        results = await rendering;
      } finally {
        await during?.catch(() => {});
      }
      await during;
    }
    await writer?.drain();
    // the workers of a one-shot build are gone now: the dependencies come back for the manifest
    // (as their JSON text when nothing reads them past this build: the manifest only writes them)
    spill?.restore({ raw: settings.manifestWrittenOnly && settings.cache === null });
    return { stopped: false, results };
  } catch (error) {
    // no write may land in the session once it is aborted
    await during?.catch(() => {});
    await writer?.drain().catch(() => {});
    await session?.abort();
    if (!(error instanceof RenderAbortedError)) throw error;
    return { stopped: true, reason: error.message };
  } finally {
    await spill?.close();
  }
}
