import { availableParallelism } from 'node:os';
import { type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import type { StoredContentType } from '@trelliscms/core';
import { startWorker } from '../shared/worker-script';
import { type BatchParts, MAKING, TAKEN } from './import-prepare';
import type { StartMessage } from './import-worker';

/**
 * When an import prepares its rows on a second thread (see {@link prepareAhead}): on a machine
 * with more than one core, for imports of at least `minRecords` records in at least two
 * batches whose body holds at most `maxBytesPerRecord` bytes of JSON per record, with at most
 * `ahead` batches made ahead. (Long records are left in one thread: with 2.5 KB records the
 * thread cost about 40 % more CPU in all — the body parsed twice, the rows' texts copied back —
 * and did not lower the import's own thread's CPU measurably; docs/benchmarks.md, round 5.) Not
 * used by an import that writes its batches off the main thread (import-records.ts
 * `detachedWrites`: round 10). `waitForThread` (tests) makes the import
 * wait for each batch's parts instead of making them itself when they are not there yet.
 */
export const importThread = {
  enabled: availableParallelism() > 1,
  minRecords: 1_000,
  maxBytesPerRecord: 1_024,
  ahead: 4,
  waitForThread: false,
};

/** Batches taken by imports in this process, and how many of them had their parts from the thread (benches print them). */
export const importThreadStats = { batches: 0, fromThread: 0, waitedMs: 0 };

/** The rows' parts of an import's batches, made ahead on the preparing thread. */
export interface ImportPreparing {
  /** The time of the empty body of every new item of the import (the hashes the thread made hold it). */
  readonly bodyTime: number;
  /**
   * The parts of batch `batch` when the thread has made them; null when it has not (yet), and
   * then the import makes them itself (the thread skips the batch). Batches are taken in order.
   */
  take(batch: number): Promise<BatchParts | null>;
  /** The import is over (done or failed): the thread stops this job. */
  close(): void;
  /** Batches whose parts came from the thread (for tests and benches). */
  readonly fromThread: number;
}

interface Job {
  results: Map<number, BatchParts>;
  waiting: Map<number, (parts: BatchParts | null) => void>;
  failed: boolean;
}

type Answer =
  | { job: number; batch: number; parts: BatchParts }
  | { job: number; failed: true }
  | { pong: true };

/** The process's preparing thread, started at the first import that uses it; unref'd. */
class PreparingThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly jobs = new Map<number, Job>();
  private nextJob = 1;
  dead = false;

  constructor() {
    // dist/import-worker.js, or import-worker.ts through tsx from the sources
    ({ worker: this.worker, port: this.port } = startWorker(import.meta.url, 'import-worker'));
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
    this.ready = new Promise((resolve) => {
      this.answered = resolve;
    });
    // held (ref'd) until the thread answers its first message, then while an import runs
    this.port.on('message', (answer: Answer) => this.receive(answer));
    this.port.postMessage({ kind: 'ping' });
  }

  /** Ends the thread: its jobs fail (their imports make the rest of their batches themselves). */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  /** Every job's batches are made by the import from now on; no new job is started. */
  private fail() {
    this.dead = true;
    this.answered?.(false);
    for (const job of this.jobs.values()) this.failJob(job);
    this.jobs.clear();
    this.port.unref();
  }

  private failJob(job: Job) {
    job.failed = true;
    for (const resolve of job.waiting.values()) resolve(null);
    job.waiting.clear();
  }

  /** Resolved at the thread's first answer (its modules loaded). */
  readonly ready: Promise<boolean>;
  private answered: ((ok: boolean) => void) | null = null;

  private receive(answer: Answer) {
    if ('pong' in answer) {
      this.answered?.(true);
      if (this.jobs.size === 0) this.port.unref();
      return;
    }
    const job = this.jobs.get(answer.job);
    if (!job) return;
    if ('failed' in answer) return this.failJob(job);
    const resolve = job.waiting.get(answer.batch);
    if (resolve) {
      job.waiting.delete(answer.batch);
      resolve(answer.parts);
    } else job.results.set(answer.batch, answer.parts);
  }

  /** Answers already sent by the thread, taken now (the import's thread may not have run its event loop since). */
  private drain() {
    for (let message = receiveMessageOnPort(this.port); message; message = receiveMessageOnPort(this.port))
      this.receive(message.message as Answer);
  }

  start(type: StoredContentType, source: string, ranges: Array<[number, number]>): ImportPreparing {
    const id = this.nextJob++;
    const job: Job = { results: new Map(), waiting: new Map(), failed: false };
    this.jobs.set(id, job);
    if (this.jobs.size === 1) this.port.ref();
    const bodyTime = Date.now();
    const progress = new Int32Array(new SharedArrayBuffer(8)).fill(-1);
    const start: StartMessage = {
      kind: 'start',
      job: id,
      type,
      source,
      ranges,
      bodyTime,
      ahead: importThread.ahead,
      progress,
    };
    this.port.postMessage(start);
    let fromThread = 0;
    let closed = false;
    // the thread reads what the import took from `progress`, and is woken when it waits for it
    const took = (batch: number) => {
      Atomics.store(progress, TAKEN, batch);
      Atomics.notify(progress, TAKEN);
    };
    return {
      bodyTime,
      get fromThread() {
        return fromThread;
      },
      take: async (batch) => {
        // read before taking the answers sent: a batch the thread was still making then is
        // either among them or sent later (the thread marks it done only after sending it)
        const making = Atomics.load(progress, MAKING);
        this.drain();
        let parts = job.results.get(batch) ?? null;
        job.results.delete(batch);
        // the batch the thread is making now is waited for (about what making it here would take)
        const wait = importThread.waitForThread || making === batch;
        if (parts === null && wait && !job.failed && !this.dead) {
          const waitFrom = performance.now();
          parts = await new Promise<BatchParts | null>((resolve) => job.waiting.set(batch, resolve));
          importThreadStats.waitedMs += performance.now() - waitFrom;
        }
        took(batch);
        importThreadStats.batches += 1;
        if (parts !== null) {
          fromThread += 1;
          importThreadStats.fromThread += 1;
        }
        return parts;
      },
      close: () => {
        if (closed) return;
        closed = true;
        took(ranges.length);
        this.failJob(job);
        this.jobs.delete(id);
        if (this.jobs.size === 0) this.port.unref();
      },
    };
  }
}

let thread: PreparingThread | null = null;

/**
 * Starts preparing an import's new rows on the process's preparing thread, so that the
 * per-record JavaScript of the next batches (the fields' JSON, the content hash, the search
 * text) runs on another core while the import writes the current batch: the import's wall time
 * then tends to the larger of that work and the engine's instead of their sum. `source` is the
 * request body's JSON text (the thread parses it itself: nothing is copied record by record).
 * Null when the thread is not used (one core, a small import, long records, no source, or the
 * thread failed before): the import then makes every row itself, as it does for any batch whose parts are
 * not ready when it writes it.
 */
export function prepareAhead({
  type,
  source,
  ranges,
}: {
  type: StoredContentType;
  source: string | undefined;
  ranges: Array<[number, number]>;
}): ImportPreparing | null {
  if (!importThread.enabled || source === undefined || ranges.length < 2) return null;
  const count = ranges.at(-1)![1] - ranges[0]![0];
  if (count < importThread.minRecords || source.length / count > importThread.maxBytesPerRecord) return null;
  if (thread?.dead) return null;
  try {
    thread ??= new PreparingThread();
    return thread.start(type, source, ranges);
  } catch {
    return null;
  }
}

/**
 * Starts the process's preparing thread if it is not running, and resolves once it has loaded
 * (true), or failed (false), or when the thread is not used here (false). An import does not
 * wait for it (its first batches are made in its own thread meanwhile); benches do, so that
 * the thread's start-up (seconds when started from the TypeScript sources) is not timed.
 */
export function importThreadReady(): Promise<boolean> {
  if (!importThread.enabled || thread?.dead) return Promise.resolve(false);
  try {
    thread ??= new PreparingThread();
    return thread.ready;
  } catch {
    return Promise.resolve(false);
  }
}

/**
 * Ends the process's preparing thread, if one runs (the next import that uses it starts a new
 * one). Imports under way make the rest of their batches themselves, as when the thread dies.
 */
export async function stopImportThread(): Promise<void> {
  const running = thread;
  thread = null;
  if (running) await running.terminate();
}
