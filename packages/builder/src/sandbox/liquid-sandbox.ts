import { Worker } from 'node:worker_threads';
import { workerScript } from '../render/worker-url';
import type { SandboxJob, SandboxReply, SandboxResults } from './protocol';

/** Why the sandbox gave up on a job: past its deadline, out of memory, or the worker died. */
export class SandboxStoppedError extends Error {
  override readonly name = 'SandboxStoppedError';
}

/** How long a new worker may take to load its modules (from the sources through tsx: seconds). */
const STARTUP_TIMEOUT_MS = 60_000;

/** The Liquid sandbox worker's script (`dist/liquid-worker.js`, or the `.ts` through tsx). */
function liquidWorkerScript() {
  return workerScript({ built: 'liquid-worker.js', source: '../sandbox/liquid-worker.ts' });
}

/**
 * One worker thread that runs user-supplied Liquid (template checks, a build's transforms),
 * one job at a time, with a V8 heap limit. A job past its deadline (or whose worker runs out
 * of memory or crashes) rejects with {@link SandboxStoppedError} and its worker is terminated
 * (the next job starts a new one), so nothing it does can hold the calling thread. An idle
 * worker does not keep the process alive; `close()` ends it.
 */
export class LiquidSandbox {
  private worker: Worker | null = null;
  /** settles once `worker` has loaded (its jobs' deadlines start then) */
  private ready: Promise<void> = Promise.resolve();
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(private readonly options: { memoryMb: number }) {}

  /**
   * Runs `job`; rejects with {@link SandboxStoppedError} when it takes longer than `timeoutMs`,
   * runs out of memory, or its input is too large for the worker's heap: a snapshot of more than
   * a quarter of the heap is refused before it is sent, since receiving it is one allocation that
   * V8 cannot stop gracefully (it would end the whole process, not just the worker).
   */
  run<J extends SandboxJob>(
    job: J,
    { timeoutMs }: { timeoutMs: number },
  ): Promise<SandboxResults[J['type']]> {
    const inputBytes = job.type === 'transforms' ? job.snapshotJson.length : 0;
    if (inputBytes > (this.options.memoryMb * 1_000_000) / 4) {
      return Promise.reject(
        new SandboxStoppedError(
          `the ${job.type} job's input (${(inputBytes / 1e6).toFixed(1)} MB) is too large for the sandbox's ${this.options.memoryMb} MB heap`,
        ),
      );
    }
    const result = this.queue.then(() => this.runNow(job, timeoutMs));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the worker (a job running rejects). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  /** A loaded worker: the current one, or a new one once it said it is ready. */
  private async loaded(): Promise<Worker> {
    if (!this.worker) {
      const script = liquidWorkerScript();
      const worker = new Worker(script.url, {
        execArgv: script.execArgv,
        resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
      });
      this.worker = worker;
      this.ready = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => fail(new Error('it did not start in time')), STARTUP_TIMEOUT_MS);
        const fail = (error: Error) => {
          clearTimeout(timer);
          worker.off('message', onReady);
          if (this.worker === worker) this.worker = null;
          void worker.terminate();
          reject(new SandboxStoppedError(`the Liquid sandbox worker could not start: ${error.message}`));
        };
        const onReady = (message: unknown) => {
          if (message !== 'ready') return;
          clearTimeout(timer);
          worker.off('message', onReady);
          worker.off('error', fail);
          resolve();
        };
        worker.on('message', onReady);
        worker.once('error', fail);
      });
    }
    const worker = this.worker;
    worker.ref();
    try {
      await this.ready;
    } catch (error) {
      worker.unref();
      throw error;
    }
    return worker;
  }

  private async runNow<J extends SandboxJob>(job: J, timeoutMs: number): Promise<SandboxResults[J['type']]> {
    const worker = await this.loaded();
    const id = this.nextId++;
    return new Promise<SandboxResults[J['type']]>((resolve, reject) => {
      const stop = (reason: string) => {
        cleanup();
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        reject(new SandboxStoppedError(reason));
      };
      const timer = setTimeout(
        () => stop(`the ${job.type} job ran past its ${timeoutMs} ms and its worker was stopped`),
        timeoutMs,
      );
      const onMessage = (reply: SandboxReply) => {
        if (reply.id !== id) return;
        cleanup();
        worker.unref();
        if (reply.ok) resolve(reply.result as SandboxResults[J['type']]);
        else reject(new Error(reply.error));
      };
      const onError = (error: Error & { code?: string }) =>
        stop(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `the ${job.type} job ran out of memory (limit ${this.options.memoryMb} MB) and its worker was stopped`
            : `the ${job.type} job's worker crashed: ${error.message}`,
        );
      const onExit = (code: number) =>
        stop(`the ${job.type} job's worker exited unexpectedly (code ${code})`);
      const cleanup = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ ...job, id });
    });
  }
}
