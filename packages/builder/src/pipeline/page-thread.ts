import { Worker } from 'node:worker_threads';
import { RenderAbortedError } from '../render/render-pool';
import type { RenderedPage } from '../render/worker-protocol';
import { workerScript } from '../render/worker-url';
import { heapWatch } from './heap-watch';
import type { PageBatch, PageBatchAnswer } from './page-write-worker';

/**
 * Pages to render from which a build whose write session has a local page folder writes them on
 * a thread of its own (below it, the thread's start-up would cost more than it saves). Tests
 * lower it.
 */
export const pageThreadMinPages = { value: 2_000 };

/** The page writer thread's script (`dist/page-write-worker.js`, or its `.ts` through tsx). */
function pageWriteWorkerScript() {
  return workerScript({ built: 'page-write-worker.js', source: '../pipeline/page-write-worker.ts' });
}

const encoder = new TextEncoder();

/** The error that stops a build whose page could not be written (either page writer's). */
export function pageWriteFailed(error: unknown): RenderAbortedError {
  return new RenderAbortedError(
    `a page could not be written: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/**
 * Growth of the build thread's heap in use past which the threaded writer asks for a full
 * collection (see {@link heapWatch}; half the heap in use after the last one when that is more). The writes through `writeFile` kept each chunk's page
 * bytes (external memory) until written, and V8 collected whenever 64 MB of those had come;
 * pages handed to the thread are copied and let go at once, so nothing else keeps the heap
 * to that cadence.
 */
const HEAP_GROWTH_BYTES = 160 * 1024 * 1024;

/**
 * The render stage's page writer for a write session with a local `pageFolder`: the pages go to
 * a thread of their own (`page-write-worker.ts`) in one message per batch, their bytes copied
 * into one transferred buffer, and that thread writes them with synchronous calls (folders made
 * once, as the session's `writeFile` makes them). The same contract as `pageWriter`: `add`
 * answers a promise while `highWater` pages or more are given and not yet written (the renderer
 * hands out no more work until it settles, so pages never pile up in memory); `drain` waits for
 * every page given, stops the thread (no write lands after it) and throws the first failed write.
 * The thread starts with the first pages.
 */
export function threadPageWriter(root: string, highWater: number) {
  let worker: Worker | null = null;
  /** pages posted to the thread and not answered yet */
  let queued = 0;
  let failure: { error: unknown } | null = null;
  let idle: Array<() => void> = [];
  let behind: Array<() => void> = [];
  const heap = heapWatch(HEAP_GROWTH_BYTES);
  const settle = () => {
    if (failure || queued < highWater) for (const resolve of behind.splice(0)) resolve();
    if (failure || queued === 0) for (const resolve of idle.splice(0)) resolve();
  };
  const start = () => {
    const script = pageWriteWorkerScript();
    const thread = new Worker(script.url, {
      execArgv: script.execArgv,
      workerData: { root },
      // it holds a batch at a time; the bytes are outside its heap
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 },
    });
    thread.on('message', (answer: PageBatchAnswer) => {
      queued -= answer.pages;
      if (answer.error !== undefined) failure ??= { error: new Error(answer.error) };
      // idle, the thread does not keep the process alive
      if (queued === 0) thread.unref();
      settle();
    });
    const gone = (error: unknown) => {
      if (worker !== thread) return;
      failure ??= { error };
      queued = 0;
      settle();
    };
    thread.on('error', gone);
    thread.on('exit', (code) => gone(new Error(`the page writer thread stopped (exit code ${code})`)));
    return thread;
  };
  return {
    add(pages: readonly RenderedPage[]): Promise<void> | undefined {
      if (failure || pages.length === 0) return undefined;
      worker ??= start();
      const parts = pages.map((page) =>
        typeof page.html === 'string' ? encoder.encode(page.html) : page.html,
      );
      let total = 0;
      for (const part of parts) total += part.byteLength;
      const bytes = new Uint8Array(total);
      const ends: number[] = new Array(parts.length);
      let at = 0;
      for (let i = 0; i < parts.length; i++) {
        bytes.set(parts[i]!, at);
        at += parts[i]!.byteLength;
        ends[i] = at;
      }
      const batch: PageBatch = { files: pages.map((page) => page.file), bytes, ends };
      worker.postMessage(batch, [bytes.buffer]);
      if (queued === 0) worker.ref();
      queued += pages.length;
      heap.check();
      if (queued < highWater) return undefined;
      return new Promise<void>((resolve) => behind.push(resolve));
    },
    async drain(): Promise<void> {
      if (worker && queued > 0 && !failure) await new Promise<void>((resolve) => idle.push(resolve));
      const thread = worker;
      // its exit is no failure now
      worker = null;
      queued = 0;
      if (thread) await thread.terminate();
      idle = [];
      behind = [];
      if (failure) {
        throw pageWriteFailed(failure.error);
      }
    },
  };
}
