import { Worker } from 'node:worker_threads';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { WorkerArtifact, WorkerInit, WorkerMessage } from './worker-protocol';
import { renderWorkerUrl } from './worker-url';

/** Limits of the render workers (isolation beyond liquidjs's own limits). */
export interface WorkerLimits {
  /** V8 old-generation heap of each worker in MB; default 1536 */
  memoryMb?: number;
  /** a worker that reports no progress for this long is terminated and the build fails; default 30 000 */
  stallTimeoutMs?: number;
}

/** Why the workers stopped a build. */
export class RenderAbortedError extends Error {
  override readonly name = 'RenderAbortedError';
}

/**
 * Renders artifacts in `workers` worker threads (each with its own copy of the snapshot,
 * a heap limit and a stall watchdog). Chunks are handed out on demand. Resolves with one result
 * per spec, in spec order; rejects with {@link RenderAbortedError} when a worker runs out of
 * memory, crashes or stalls — every worker is terminated then, so nothing keeps running.
 */
export async function renderInWorkers(params: {
  specs: readonly ArtifactSpec[];
  init: Omit<WorkerInit, 'type'>;
  workers: number;
  limits?: WorkerLimits;
  chunkSize?: number;
  onProgress?: (done: number) => void;
  signal?: AbortSignal;
}): Promise<WorkerArtifact[]> {
  const { specs, init, limits = {}, onProgress, signal } = params;
  if (specs.length === 0) return [];
  const count = Math.max(1, Math.min(params.workers, Math.ceil(specs.length / 50)));
  const chunkSize = params.chunkSize ?? Math.max(10, Math.min(200, Math.ceil(specs.length / (count * 8))));
  const chunks: ArtifactSpec[][] = [];
  for (let i = 0; i < specs.length; i += chunkSize) chunks.push(specs.slice(i, i + chunkSize));
  const url = await renderWorkerUrl();
  const stallTimeoutMs = limits.stallTimeoutMs ?? 30_000;
  const results = new Map<string, WorkerArtifact>();
  const workers: Worker[] = [];
  let next = 0;
  let done = 0;

  await new Promise<void>((resolve, reject) => {
    let settled = false;
    let finished = 0;
    const timers = new Map<Worker, NodeJS.Timeout>();
    const stop = (error: Error | null) => {
      if (settled) return;
      settled = true;
      for (const timer of timers.values()) clearTimeout(timer);
      for (const worker of workers) void worker.terminate();
      signal?.removeEventListener('abort', onAbort);
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
    const dispatch = (worker: Worker) => {
      const chunk = chunks[next++];
      if (!chunk) {
        clearTimeout(timers.get(worker));
        timers.delete(worker);
        finished++;
        if (finished === workers.length) stop(null);
        return;
      }
      arm(worker);
      worker.postMessage({ type: 'render', specs: chunk });
    };
    for (let i = 0; i < count; i++) {
      const worker = new Worker(url, {
        resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb ?? 1536, stackSizeMb: 4 },
      });
      workers.push(worker);
      worker.on('message', (message: WorkerMessage) => {
        if (settled) return;
        if (message.type === 'ready') dispatch(worker);
        else if (message.type === 'progress') {
          arm(worker);
          done += message.done;
          onProgress?.(done);
        } else if (message.type === 'done') {
          for (const result of message.results) results.set(result.key, result);
          dispatch(worker);
        } else stop(new RenderAbortedError(`a render worker failed: ${message.error}`));
      });
      worker.on('error', (error: Error & { code?: string }) => {
        const reason =
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `a render worker ran out of memory (limit ${limits.memoryMb ?? 1536} MB) and was stopped`
            : `a render worker crashed: ${error.message}`;
        stop(new RenderAbortedError(reason));
      });
      worker.on('exit', (code) => {
        if (!settled) stop(new RenderAbortedError(`a render worker exited unexpectedly (code ${code})`));
      });
      arm(worker);
      worker.postMessage({ type: 'init', ...init } satisfies WorkerInit);
    }
  });
  return specs.map((spec) => results.get(spec.key)!);
}
