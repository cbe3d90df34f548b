import { Worker } from 'node:worker_threads';
import type { LiquidLimits } from '../liquid/create-liquid';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { itemHash } from '../source/item-hash';
import type { WorkerArtifact, WorkerInit, WorkerMessage, WorkerPatch, WorkerTask } from './worker-protocol';
import { renderWorkerUrl } from './worker-url';

/** Chunks queued per worker. */
const AHEAD = 2;

/** Limits of the render workers (isolation beyond liquidjs's own limits). */
export interface WorkerLimits {
  /** V8 old-generation heap of each worker in MB; default about 8× the snapshot's JSON size, 512–4096 */
  memoryMb?: number;
  /** a worker that reports no progress for this long is terminated and the build fails; default 30 000 */
  stallTimeoutMs?: number;
}

/** Why the workers stopped a build. */
export class RenderAbortedError extends Error {
  override readonly name = 'RenderAbortedError';
}

interface Loaded {
  /** the items the worker holds, by id, as they were when sent (the caller may change its arrays later) */
  items: Map<string, SnapshotItem>;
  /** their hashes when sent (an item object may be changed in place afterwards) */
  hashes: Map<string, string>;
  edges: Snapshot['edges'];
  edgeCount: number;
  key: string;
}

interface Slot {
  worker: Worker;
  loaded: Loaded | null;
}

/** What one render run needs. */
export interface RenderRun {
  specs: readonly ArtifactSpec[];
  snapshot: Snapshot;
  env: string;
  urls: Record<string, string>;
  limits?: LiquidLimits & WorkerLimits & { maxPageBytes?: number };
  mediaBaseUrl?: string | null;
  outDir: string | null;
  chunkSize?: number;
  onProgress?: (done: number) => void;
  signal?: AbortSignal;
}

/** Everything but the items: when it changes, workers reload the whole snapshot. */
function structureKey(run: RenderRun): string {
  const { snapshot } = run;
  return JSON.stringify([
    run.env,
    run.mediaBaseUrl ?? null,
    run.limits ?? null,
    snapshot.site,
    snapshot.types,
    snapshot.templates,
    snapshot.routes ?? [],
    snapshot.views ?? [],
    snapshot.transforms ?? [],
  ]);
}

function sameEdges(loaded: Loaded, after: Snapshot): boolean {
  // Edges are compared by identity of the array and its length: a caller that edits edges in
  // place gets a full reload only when the count changes, so edge edits should come as new arrays.
  return loaded.edges === after.edges && loaded.edgeCount === after.edges.length;
}

/** Items that differ from what a worker holds, or null when a full reload is simpler. */
function diffItems(loaded: Loaded, after: Snapshot): { items: SnapshotItem[]; removed: string[] } | null {
  if (!sameEdges(loaded, after)) return null;
  const old = new Map(loaded.items);
  const items: SnapshotItem[] = [];
  for (const item of after.items) {
    const previous = old.get(item.id);
    old.delete(item.id);
    if (previous === item && itemHash(previous) === loaded.hashes.get(item.id)) continue;
    if (
      !previous ||
      loaded.hashes.get(item.id) !== itemHash(item) ||
      JSON.stringify(previous.embedding ?? null) !== JSON.stringify(item.embedding ?? null)
    ) {
      items.push(item);
    }
  }
  const removed = [...old.keys()];
  if (items.length + removed.length > after.items.length / 4) return null;
  return { items, removed };
}

function loadedOf(snapshot: Snapshot, key: string): Loaded {
  const items = new Map<string, SnapshotItem>();
  const hashes = new Map<string, string>();
  for (const item of snapshot.items) {
    items.set(item.id, item);
    hashes.set(item.id, itemHash(item));
  }
  return { items, hashes, edges: snapshot.edges, edgeCount: snapshot.edges.length, key };
}

/**
 * Render worker threads kept between builds. Each worker holds the snapshot of the last build
 * it served; the next build sends it only the items that changed (or the whole snapshot when
 * types, templates, settings or edges changed), so a small incremental build does not pay for
 * loading the site again. Keep one pool per site and environment; `close()` ends its workers.
 * Idle workers do not keep the process alive.
 */
export class RenderPool {
  readonly size: number;
  private slots: Slot[] = [];
  private memoryMb: number | null = null;

  constructor(options: { size?: number } = {}) {
    this.size = Math.max(1, options.size ?? 2);
  }

  /** Ends every worker. The pool can be used again afterwards (it starts new workers). */
  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /**
   * Renders artifacts on up to `size` workers, chunks handed out on demand. Resolves with one
   * result per spec, in spec order; rejects with {@link RenderAbortedError} when a worker runs
   * out of memory, crashes or stalls — every worker is terminated then.
   */
  async render(run: RenderRun): Promise<WorkerArtifact[]> {
    const { specs, limits = {}, onProgress, signal } = run;
    if (specs.length === 0) return [];
    const needsInit = this.slots.length < this.size || this.slots.some((slot) => !slot.loaded);
    let json: string | null = null;
    const snapshotJson = () => {
      json ??= JSON.stringify(run.snapshot);
      return json;
    };
    // A worker's heap limit, unless given: about 8 times the snapshot's JSON size (what parsing
    // and indexing it takes), between 512 MB and 4 GB. A tighter heap also keeps memory use down.
    const memoryMb =
      limits.memoryMb ??
      (needsInit
        ? Math.min(4096, Math.max(512, Math.ceil((snapshotJson().length / 1e6) * 8)))
        : (this.memoryMb ?? 512));
    if (this.memoryMb !== null && this.memoryMb !== memoryMb) await this.close();
    this.memoryMb = memoryMb;
    const count = Math.max(1, Math.min(this.size, Math.ceil(specs.length / 50)));
    // Small chunks even for large builds: with AHEAD chunks queued per worker, the last ones decide how
    // long one worker waits for the other at the end.
    const chunkSize = run.chunkSize ?? Math.max(10, Math.min(100, Math.ceil(specs.length / (count * 8))));
    const chunks: ArtifactSpec[][] = [];
    for (let i = 0; i < specs.length; i += chunkSize) chunks.push(specs.slice(i, i + chunkSize));
    const url = await renderWorkerUrl();
    while (this.slots.length < count) {
      const worker = new Worker(url, {
        resourceLimits: { maxOldGenerationSizeMb: memoryMb },
      });
      this.slots.push({ worker, loaded: null });
    }
    const slots = this.slots.slice(0, count);
    const key = structureKey(run);
    const diffs = new Map<Loaded, ReturnType<typeof diffItems>>();
    let current: Loaded | null = null;
    const currentLoaded = () => {
      current ??= loadedOf(run.snapshot, key);
      return current;
    };
    const stallTimeoutMs = limits.stallTimeoutMs ?? 30_000;
    const results = new Map<string, WorkerArtifact>();
    let next = 0;
    let done = 0;

    try {
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        let finished = 0;
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
        const arm = (worker: Worker) => {
          clearTimeout(timers.get(worker));
          timers.set(
            worker,
            setTimeout(
              () =>
                stop(
                  new RenderAbortedError(
                    `a render worker made no progress for ${stallTimeoutMs} ms and was stopped (a template may loop without end)`,
                  ),
                ),
              stallTimeoutMs,
            ),
          );
        };
        // Each worker has up to AHEAD chunks queued, sent with its snapshot: it never waits for
        // this thread between chunks, so this thread may work meanwhile (the build emits the
        // search index while pages render).
        const queued = new Map<Slot, number>();
        const dispatch = (slot: Slot) => {
          let count = queued.get(slot) ?? 0;
          while (count < AHEAD && next < chunks.length) {
            const chunk = chunks[next++]!;
            count++;
            arm(slot.worker);
            slot.worker.postMessage({
              type: 'render',
              specs: chunk,
              outDir: run.outDir,
            } satisfies WorkerTask);
          }
          queued.set(slot, count);
          if (count === 0) {
            clearTimeout(timers.get(slot.worker));
            timers.delete(slot.worker);
            finished++;
            if (finished === slots.length) stop(null);
          }
        };
        for (const slot of slots) {
          const { worker } = slot;
          worker.ref();
          worker.on('message', (message: WorkerMessage) => {
            if (settled) return;
            if (message.type === 'ready') {
              slot.loaded = currentLoaded();
            } else if (message.type === 'progress') {
              arm(worker);
              done += message.done;
              onProgress?.(done);
            } else if (message.type === 'done') {
              for (const result of message.results) results.set(result.key, result);
              queued.set(slot, (queued.get(slot) ?? 1) - 1);
              dispatch(slot);
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
          const loaded = slot.loaded;
          let diff: ReturnType<typeof diffItems> = null;
          if (loaded && loaded.key === key) {
            if (!diffs.has(loaded)) diffs.set(loaded, diffItems(loaded, run.snapshot));
            diff = diffs.get(loaded) ?? null;
          }
          slot.loaded = null;
          if (diff) {
            worker.postMessage({
              type: 'patch',
              items: diff.items,
              removed: diff.removed,
              urls: run.urls,
            } satisfies WorkerPatch);
          } else {
            worker.postMessage({
              type: 'init',
              snapshotJson: snapshotJson(),
              env: run.env,
              urls: run.urls,
              limits: run.limits,
              maxPageBytes: run.limits?.maxPageBytes,
              mediaBaseUrl: run.mediaBaseUrl ?? null,
            } satisfies WorkerInit);
          }
          dispatch(slot);
        }
      });
    } catch (error) {
      await this.close();
      throw error;
    }
    return specs.map((spec) => results.get(spec.key)!);
  }
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
