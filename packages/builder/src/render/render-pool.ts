import { Worker } from 'node:worker_threads';
import { BuildCache } from '../incremental/build-cache';
import { advance, type Loaded, loadedOf, structureKey } from '../incremental/warm-pool';
import { DEFAULT_RENDER_TIME_MS, type LiquidLimits } from '../liquid/create-liquid';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import { LiquidSandbox } from '../sandbox/liquid-sandbox';
import { frameOf, packStore, type SharedStore } from '../snapshot/shared-store';
import type { Snapshot } from '../snapshot/types';
import { isVisibleIn, type SharedList } from '../source/snapshot-source';
import type {
  RenderedPage,
  WorkerArtifact,
  WorkerInit,
  WorkerMessage,
  WorkerPatch,
  WorkerTask,
} from './worker-protocol';
import { renderWorkerScript } from './worker-url';

/** Chunks queued per worker. */
const AHEAD = 3;

/**
 * Chunks queued per worker when a run starts, at most: right after handing out the first
 * chunks the build's thread makes the search index and sitemap (a synchronous stretch of
 * hundreds of milliseconds on a 10,000-page site) and hands out no chunk meanwhile; with only
 * {@link AHEAD} chunks queued the workers ran dry during it. See {@link startAhead}.
 */
const START_AHEAD = 16;

/**
 * How many chunks each of `workers` workers is given when the run starts: enough to render
 * through the build thread's first synchronous stretch, never more than a third of the run's
 * chunks per worker (the rest is handed out as workers finish, which keeps them balanced).
 */
export function startAhead(chunks: number, workers: number): number {
  return Math.max(AHEAD, Math.min(START_AHEAD, Math.floor(chunks / (workers * 3))));
}

/**
 * A run's specs in chunks of `size`, the last quarter of them in chunks of a quarter of that
 * (at least 10): at the end of a run a worker waits for the other's queued chunks, so the last
 * ones are small.
 */
export function chunksOf<T>(specs: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  const tailFrom = specs.length - Math.floor(specs.length / 4);
  const small = Math.max(10, Math.ceil(size / 4));
  for (let i = 0; i < specs.length; ) {
    const end = Math.min(specs.length, i + (i >= tailFrom ? small : size));
    chunks.push(specs.slice(i, end));
    i = end;
  }
  return chunks;
}

/**
 * A render worker's young generation, smaller than V8's default. Rendering makes
 * short-lived strings and objects; a smaller nursery collects them as often as it needs and
 * keeps about 25 MB less per worker resident (10,000 items: process peak 393–428 MB against
 * 454–480 MB with the default, pairs on a busy machine, docs/benchmarks.md session 10).
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * A worker's old-generation limit, unless given: {@link WORKER_BASE_MB} plus this many times the
 * URL map's estimated size ({@link urlMapBytes}). A worker holds no item records (they are in
 * the shared store, parsed when read, see `StoreReader`): what grows with the site in its heap
 * is the URL map (a copy per worker, and the renderer's own), the rest is bounded (the render
 * memo, the items read lately). V8 lets a heap's garbage grow towards its limit, so the limit
 * bounds what each worker holds: sized from the records and edges as before, it gave each worker
 * 7.7 GB at 1,000,000 items.
 */
const OLD_GENERATION_PER_URL_BYTE = 4;
/** What a worker needs besides its URL map: code, templates, the render memo, pages in progress. */
const WORKER_BASE_MB = 256;
/** The largest old-generation limit a render worker is given, unless given. */
const MAX_WORKER_MEMORY_MB = 8192;

/** Estimated heap bytes of a URL map (keys and paths as two-byte strings, and a `Map` entry each). */
export function urlMapBytes(urls: ReadonlyMap<string, string> | Readonly<Record<string, string>>): number {
  let bytes = 0;
  const add = (key: string, value: string) => {
    bytes += 2 * (key.length + value.length) + 64;
  };
  if (urls instanceof Map) for (const [key, value] of urls) add(key, value);
  else for (const key of Object.keys(urls)) add(key, (urls as Record<string, string>)[key]!);
  return bytes;
}

/** A render worker's old-generation limit for a build whose URL map is of `urlBytes` (see {@link urlMapBytes}). */
export function workerMemoryMb(urlBytes: number): number {
  return Math.min(
    MAX_WORKER_MEMORY_MB,
    Math.max(
      MIN_WORKER_MEMORY_MB,
      WORKER_BASE_MB + Math.ceil((urlBytes * OLD_GENERATION_PER_URL_BYTE) / 1e6),
    ),
  );
}

/** The smallest old-generation limit a render worker is given (MB), unless given. */
export const MIN_WORKER_MEMORY_MB = 512;

/**
 * Render workers started ahead of a build (see {@link prestartRenderWorkers}), waiting for a
 * pool that wants workers with their heap limit.
 */
interface Prestarted {
  worker: Worker;
  memoryMb: number;
  /** the worker failed or exited before a pool took it */
  dead: boolean;
  onError: (error: Error) => void;
  onExit: () => void;
}
let prestarted: Prestarted[] = [];

/**
 * Starts `count` render workers now, with an old-generation limit of `memoryMb`, for the next
 * pool that starts workers of that limit: their start-up (a new V8 isolate, loading liquidjs,
 * marked and the renderer) overlaps with whatever this thread does until then (`cms-build`
 * reads and plans the snapshot meanwhile). A pool needing workers of another limit terminates
 * them and starts its own, so a wrong guess costs only their start-up; the render is the same
 * either way (a prestarted worker has been given nothing before the pool's first message).
 * They do not keep the process alive; {@link discardPrestartedWorkers} ends those not taken.
 */
export function prestartRenderWorkers(count: number, memoryMb: number): void {
  const script = renderWorkerScript();
  for (let i = 0; i < count; i++) {
    const worker = new Worker(script.url, {
      execArgv: script.execArgv,
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    });
    const entry: Prestarted = {
      worker,
      memoryMb,
      dead: false,
      onError: () => {
        entry.dead = true;
      },
      onExit: () => {
        entry.dead = true;
      },
    };
    worker.on('error', entry.onError);
    worker.on('exit', entry.onExit);
    worker.unref();
    prestarted.push(entry);
  }
}

/** The URL map's size counted per byte of the snapshot file by {@link prestartMemoryMb} (a bound: about 0.08 on the bench site). */
const URL_BYTES_PER_FILE_BYTE = 2;

/**
 * What {@link prestartRenderWorkers} is given for a build of a snapshot file of `fileBytes`:
 * the smallest heap limit when the file is small enough that the pool is sure to want it (the
 * URL map, which sizes a worker's limit, is counted as up to {@link URL_BYTES_PER_FILE_BYTE}
 * times the file), else null (a large build's start-up is a small share of it, and a guess of
 * its limit would most likely be wrong).
 */
export function prestartMemoryMb(fileBytes: number): number | null {
  const bound = workerMemoryMb(fileBytes * URL_BYTES_PER_FILE_BYTE);
  return bound <= MIN_WORKER_MEMORY_MB ? MIN_WORKER_MEMORY_MB : null;
}

/** Ends the prestarted workers no pool took. */
export async function discardPrestartedWorkers(): Promise<void> {
  const left = prestarted;
  prestarted = [];
  await Promise.all(left.map((entry) => entry.worker.terminate()));
}

/** How many prestarted workers wait for a pool (for tests). */
export function prestartedWorkerCount(): number {
  return prestarted.length;
}

/** A prestarted worker with this heap limit, or null (the others are ended: no pool will take them). */
function takePrestarted(memoryMb: number): Worker | null {
  while (prestarted.length > 0) {
    const entry = prestarted.shift()!;
    entry.worker.off('error', entry.onError);
    entry.worker.off('exit', entry.onExit);
    if (!entry.dead && entry.memoryMb === memoryMb) return entry.worker;
    void entry.worker.terminate();
  }
  return null;
}

/** Limits of the render workers (isolation beyond liquidjs's own limits). */
export interface WorkerLimits {
  /** V8 old-generation heap of each worker in MB; default from the size of the build's URL map (see `workerMemoryMb`), 512–8192 */
  memoryMb?: number;
  /** a worker that reports no progress for this long is terminated and the build fails; default 30 000 */
  stallTimeoutMs?: number;
}

/** Why the workers stopped a build. */
export class RenderAbortedError extends Error {
  override readonly name = 'RenderAbortedError';
}

interface Slot {
  worker: Worker;
  /** whether the worker holds the pool's {@link Loaded} (it has acknowledged it), but for `backlog` */
  current: boolean;
  /** patches of runs the worker had no part in, sent before its next run */
  backlog: Array<Omit<WorkerPatch, 'type'>>;
}

// Patches a worker left out of runs may owe at most (then it loads the whole snapshot when next used).
const MAX_BACKLOG = 64;

/** What one render run needs. */
export interface RenderRun {
  specs: readonly ArtifactSpec[];
  snapshot: Snapshot;
  env: string;
  /** item id → page path; not changed afterwards (the next run may compare it by identity) */
  urls: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  limits?: LiquidLimits & WorkerLimits & { maxPageBytes?: number };
  mediaBaseUrl?: string | null;
  /** sorted lists of the build's source (see `SnapshotSource.sharedLists`), given to workers that load the snapshot */
  lists?: readonly SharedList[];
  /**
   * takes each chunk's pages as they come (the build writes them); without it, pages are not
   * sent back. A promise says the taker is behind: the worker that rendered them gets no more
   * chunks until it settles.
   */
  onPages?: (pages: RenderedPage[]) => Promise<void> | undefined;
  /**
   * takes each page's dependencies out of memory as its chunk comes (the build's `DepsSpill`,
   * which gives them back once the run is over); without it the run keeps them, each distinct
   * hash once (see {@link shareDepStrings}). The workers then send each page's dependencies as
   * their JSON text (`json`), which the spill writes as it is.
   */
  spill?: { put(result: WorkerArtifact, json?: string): void };
  chunkSize?: number;
  onProgress?: (done: number) => void;
  signal?: AbortSignal;
}

/**
 * Render worker threads kept between builds. The workers hold the snapshot of the last build
 * the pool served; the next build sends them only the items and URLs that changed (or the
 * whole snapshot when types, templates, settings or edges changed), and they keep their parsed
 * templates, list orders and edge index, so a small incremental build does not pay for loading
 * the site again. Keep one pool per site and environment; `close()` ends its workers. Idle
 * workers do not keep the process alive.
 */
export class RenderPool {
  readonly size: number;
  /** the build state kept with these warm workers (a build given this pool and no `cache` uses it) */
  readonly cache = new BuildCache();
  private slots: Slot[] = [];
  private memoryMb: number | null = null;
  /** what the workers marked `current` hold */
  private loaded: Loaded | null = null;
  /** the worker that runs the builds' transforms, kept warm like the render workers */
  private sandbox: { memoryMb: number; sandbox: LiquidSandbox } | null = null;

  constructor(options: { size?: number } = {}) {
    this.size = Math.max(1, options.size ?? 2);
  }

  /** Ends every worker. The pool can be used again afterwards (it starts new workers). */
  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    this.loaded = null;
    await Promise.all([...slots.map((slot) => slot.worker.terminate()), this.closeSandbox()]);
  }

  /**
   * The Liquid sandbox the builds of this pool run their transforms in, with a heap of
   * `memoryMb` (a new one when the size changed). `close()` ends it with the render workers.
   */
  liquidSandbox(memoryMb: number): LiquidSandbox {
    if (this.sandbox?.memoryMb !== memoryMb) {
      void this.closeSandbox();
      this.sandbox = { memoryMb, sandbox: new LiquidSandbox({ memoryMb }) };
    }
    return this.sandbox.sandbox;
  }

  private async closeSandbox(): Promise<void> {
    const kept = this.sandbox;
    this.sandbox = null;
    await kept?.sandbox.close();
  }

  /**
   * Renders artifacts on up to `size` workers, chunks handed out on demand. Resolves with one
   * result per spec, in spec order; rejects with {@link RenderAbortedError} when a worker runs
   * out of memory, crashes or stalls — every worker is terminated then. A run uses as many
   * workers as its pages need (one per 50, up to `size`); the others take its patch later.
   */
  async render(run: RenderRun): Promise<WorkerArtifact[]> {
    const { specs, limits = {}, onProgress, signal } = run;
    if (specs.length === 0) return [];
    const key = structureKey(run);
    const count = Math.max(1, Math.min(this.size, Math.ceil(specs.length / 50)));
    // The changes since the workers' snapshot, when a worker holds it and it is worth patching.
    let loaded = this.loaded;
    this.loaded = null;
    let patch: Omit<WorkerPatch, 'type'> | null = null;
    if (loaded && loaded.key === key && this.slots.some((slot) => slot.current)) {
      patch = advance(loaded, run.snapshot, run.urls);
    }
    if (!patch) loaded = null;
    // The items and edges packed in shared memory once per load, for every worker that loads them.
    let packed: { store: SharedStore; recordBytes: number } | null = null;
    const pack = () => {
      packed ??= packStore(run.snapshot, run.env, (item) => isVisibleIn(item, run.env));
      return packed;
    };
    // A worker's heap limit, unless given: from the URL map, what grows with the site in a
    // worker's heap (see workerMemoryMb).
    const needsInit =
      !patch || this.slots.length < count || this.slots.slice(0, count).some((slot) => !slot.current);
    const memoryMb =
      limits.memoryMb ?? (needsInit ? workerMemoryMb(urlMapBytes(run.urls)) : (this.memoryMb ?? 512));
    if (this.memoryMb !== null && this.memoryMb !== memoryMb) {
      await this.close();
      patch = null;
      loaded = null;
    }
    this.memoryMb = memoryMb;
    // Small chunks even for large builds: with AHEAD chunks queued per worker, the last ones decide how
    // long one worker waits for the other at the end.
    const chunkSize = run.chunkSize ?? Math.max(10, Math.min(100, Math.ceil(specs.length / (count * 8))));
    const chunks = chunksOf(specs, chunkSize);
    const firstAhead = startAhead(chunks.length, count);
    const script = renderWorkerScript();
    while (this.slots.length < count) {
      const worker =
        takePrestarted(memoryMb) ??
        new Worker(script.url, {
          execArgv: script.execArgv,
          resourceLimits: {
            maxOldGenerationSizeMb: memoryMb,
            maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
          },
        });
      this.slots.push({ worker, current: false, backlog: [] });
    }
    // Workers this run needs render; the others are left alone (they take this run's patch
    // with their next run, or load the whole snapshot then).
    const slots = this.slots.slice(0, count);
    for (const slot of this.slots.slice(count)) {
      if (patch && slot.current && slot.backlog.length < MAX_BACKLOG) slot.backlog.push(patch);
      else {
        slot.current = false;
        slot.backlog = [];
      }
    }
    const stallTimeoutMs = limits.stallTimeoutMs ?? 30_000;
    const results = new Map<string, WorkerArtifact>();
    // the distinct dependency hashes of the run's pages (see shareDepStrings)
    const depStrings = new Map<string, string>();
    let next = 0;
    let done = 0;

    try {
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const finished = new Set<Slot>();
        const timers = new Map<Worker, NodeJS.Timeout>();
        const cleanup = () => {
          for (const timer of timers.values()) clearTimeout(timer);
          for (const slot of slots) {
            slot.worker.removeAllListeners('message');
            slot.worker.removeAllListeners('error');
            slot.worker.removeAllListeners('exit');
            slot.worker.unref();
          }
          signal?.removeEventListener('abort', onAbort);
        };
        const stop = (error: Error | null) => {
          if (settled) return;
          settled = true;
          cleanup();
          if (error) reject(error);
          else resolve();
        };
        const onAbort = () => stop(new RenderAbortedError('the build was cancelled'));
        signal?.addEventListener('abort', onAbort);
        // The watchdog: a worker stalls when no message of its progress came for stallTimeoutMs.
        // When it fires, this thread may itself have been busy (emitting a large site's search
        // index) with the worker's messages waiting: they are taken first (setImmediate runs
        // after pending messages), and the worker stalled only if none came.
        const heardAt = new Map<Worker, number>();
        const watch = (worker: Worker, ms: number) => {
          const timer = setTimeout(() => {
            setImmediate(() => {
              if (settled || timers.get(worker) !== timer) return;
              const quiet = performance.now() - (heardAt.get(worker) ?? 0);
              if (quiet < stallTimeoutMs) {
                watch(worker, stallTimeoutMs - quiet);
                return;
              }
              stop(
                new RenderAbortedError(
                  `a render worker made no progress for ${stallTimeoutMs} ms and was stopped (a template may loop without end)`,
                ),
              );
            });
          }, ms);
          timers.set(worker, timer);
        };
        const arm = (worker: Worker) => {
          heardAt.set(worker, performance.now());
          if (!timers.has(worker)) watch(worker, stallTimeoutMs);
        };
        // Each worker has up to AHEAD chunks queued (startAhead of them sent with its snapshot):
        // it does not wait for this thread between chunks, so this thread may work meanwhile
        // (the build emits the search index while pages render). A worker is done once it has
        // loaded the snapshot and has no chunk left.
        const queued = new Map<Slot, number>();
        // loads and patches sent to each worker and not yet acknowledged
        const loads = new Map<Slot, number>();
        const dispatch = (slot: Slot, ahead = AHEAD) => {
          let count = queued.get(slot) ?? 0;
          for (let chunk = chunks[next]; count < ahead && chunk !== undefined; chunk = chunks[next]) {
            next++;
            count++;
            arm(slot.worker);
            slot.worker.postMessage({
              type: 'render',
              specs: chunk,
              pages: run.onPages !== undefined,
              depsJson: run.spill !== undefined,
            } satisfies WorkerTask);
          }
          queued.set(slot, count);
          if (count === 0 && slot.current && !finished.has(slot)) {
            clearTimeout(timers.get(slot.worker));
            timers.delete(slot.worker);
            finished.add(slot);
            if (finished.size === slots.length) stop(null);
          }
        };
        for (const slot of slots) {
          const { worker } = slot;
          worker.ref();
          worker.on('message', (message: WorkerMessage) => {
            if (settled) return;
            if (message.type === 'ready') {
              arm(worker);
              // current once every load or patch sent to it is applied
              const left = (loads.get(slot) ?? 1) - 1;
              loads.set(slot, left);
              if (left > 0) return;
              slot.current = true;
              dispatch(slot);
            } else if (message.type === 'progress') {
              arm(worker);
              done += message.done;
              onProgress?.(done);
            } else if (message.type === 'done') {
              const pages: RenderedPage[] = [];
              const chunk = message.pages;
              message.results.forEach((done, i) => {
                // the dependencies come as their JSON text when the run spills them (WorkerTask's depsJson)
                const json = typeof done.deps === 'string' ? done.deps : undefined;
                const result = done as WorkerArtifact;
                if (run.spill) run.spill.put(result, json);
                else {
                  if (json !== undefined) result.deps = JSON.parse(json) as WorkerArtifact['deps'];
                  shareDepStrings(result.deps, depStrings);
                }
                results.set(result.key, result);
                const start = i === 0 ? 0 : (chunk?.ends[i - 1] ?? 0);
                const end = chunk?.ends[i] ?? 0;
                if (chunk && result.error === undefined) {
                  pages.push({ file: result.file, html: chunk.bytes.subarray(start, end) });
                }
              });
              queued.set(slot, (queued.get(slot) ?? 1) - 1);
              const behind = pages.length > 0 ? run.onPages?.(pages) : undefined;
              if (behind) {
                // an idle worker waiting for the writes is not stalled: its watchdog stops meanwhile
                if (queued.get(slot) === 0) {
                  clearTimeout(timers.get(worker));
                  timers.delete(worker);
                }
                behind.then(() => {
                  if (!settled) dispatch(slot);
                });
              } else dispatch(slot);
            } else if (message.type === 'limit') {
              stop(new RenderAbortedError(timeLimitReason(message, limits.renderTimeMs)));
            } else stop(new RenderAbortedError(`a render worker failed: ${message.error}`));
          });
          worker.on('error', (error: Error & { code?: string }) => {
            const reason =
              error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? `a render worker ran out of memory (limit ${memoryMb} MB) and was stopped`
                : `a render worker crashed: ${error.message}`;
            stop(new RenderAbortedError(reason));
          });
          worker.on('exit', (code) =>
            stop(new RenderAbortedError(`a render worker exited unexpectedly (code ${code})`)),
          );
          arm(worker);
          const patched = slot.current ? patch : null;
          const backlog = slot.backlog;
          slot.current = false;
          slot.backlog = [];
          if (patched) {
            const owed = [...backlog, patched];
            loads.set(slot, owed.length);
            for (const one of owed) worker.postMessage({ type: 'patch', ...one } satisfies WorkerPatch);
          } else {
            loads.set(slot, 1);
            worker.postMessage({
              type: 'init',
              frame: frameOf(run.snapshot),
              store: pack().store,
              env: run.env,
              urls: run.urls,
              limits: run.limits,
              maxPageBytes: run.limits?.maxPageBytes,
              mediaBaseUrl: run.mediaBaseUrl ?? null,
              lists: run.lists,
            } satisfies WorkerInit);
          }
          dispatch(slot, firstAhead);
        }
        // the workers hold the store now (it goes once no worker holds it)
        packed = null;
      });
    } catch (error) {
      await this.close();
      throw error;
    }
    this.loaded = loaded ?? loadedOf(run.snapshot, run.urls, key);
    return specs.map((spec) => {
      const result = results.get(spec.key);
      if (!result) throw new RenderAbortedError(`no render worker answered for ${spec.key}`);
      return result;
    });
  }
}

/**
 * Makes the hashes of a page's dependencies the same strings as those of the pages before it:
 * each page comes from its worker with copies of its own, and most pages share them (the same
 * view of an item, template or query result on many pages). The values are the same; the
 * build's thread, which keeps every page's dependencies for the manifest, holds each once.
 */
export function shareDepStrings(deps: WorkerArtifact['deps'], strings: Map<string, string>): void {
  for (const record of [deps.items, deps.templates, deps.queries]) {
    for (const key in record) {
      const value = record[key]!;
      const known = strings.get(value);
      if (known === undefined) strings.set(value, value);
      else record[key] = known;
    }
  }
}

/**
 * Why a build stopped at a page that ran past the render time limit: such a template loops
 * (most likely without end), and the pages after it would each take the limit too.
 */
export function timeLimitReason(
  page: { key: string; template: string | null; error: string },
  renderTimeMs: number | undefined,
): string {
  const template = page.template === null ? '' : ` (template "${page.template}")`;
  return `page ${page.key}${template} ran past the render time limit of ${renderTimeMs ?? DEFAULT_RENDER_TIME_MS} ms (${page.error}); the build was stopped (a template may loop without end)`;
}

/** Renders with a pool of its own, closed afterwards (one-shot builds such as `cms-build`). */
export async function renderInWorkers(run: RenderRun & { workers: number }): Promise<WorkerArtifact[]> {
  const pool = new RenderPool({ size: run.workers });
  try {
    return await pool.render(run);
  } finally {
    await pool.close();
  }
}
