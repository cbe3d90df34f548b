import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { workerScript } from '../render/worker-url';
import { buildShardIndex, type SearchDoc } from './search-index';

/**
 * Indexed documents from which a build makes its search shards in a worker of their own (below
 * it, the garbage is small and a worker's start-up would cost more than it saves). Tests lower it.
 */
export const shardWorkerMinDocs = { value: 20_000 };

/**
 * How long the worker may go without a sign of progress (its first, or the next slice of a
 * shard's documents added, or the shard serialized) before the build thread takes the shard
 * over. A worker that died (out of memory, a crash) gives no sign, and the build thread, waiting
 * in `Atomics.wait`, cannot run the worker's `exit` event meanwhile: this is how it notices.
 */
const STALL_MS = 30_000;

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/**
 * Resolves once `flag[0]` is no longer `value` (it was notified) or after `ms`. A timer of
 * this event loop bounds the wait (`Atomics.waitAsync` alone does not keep the process alive).
 */
function waitForChange(flag: Int32Array, value: number, ms: number): Promise<void> {
  const waited = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(flag, 0, value, ms);
  if (!waited.async) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms + 50);
    void waited.value.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The search-index worker's script (`dist/search-worker.js`, or `search-worker.ts` through tsx). */
function searchWorkerScript() {
  return workerScript({ built: 'search-worker.js', source: '../emit/search-worker.ts' });
}

/**
 * Makes search shards' index JSON (`buildShardIndex`) in a worker thread, answering
 * synchronously: the build thread posts a shard's documents and waits (`Atomics.wait`) for the
 * JSON. The JSON is the same string `buildShardIndex` gives in this thread; what matters is
 * where the work's garbage lands. Building a MiniSearch index leaves tens of MB of garbage per
 * shard in the old generation; on the build thread, whose heap holds the whole site, V8 lets it
 * grow to a multiple of that heap before collecting (about 800 MB at 100,000 items). The
 * worker's heap holds one shard, so its garbage is collected at a small size, and it is freed
 * whole when the worker ends (`close`). When the worker fails, or shows no progress for
 * `stallMs` (30 s; a dead worker shows none), the shard is made here (same bytes) and the
 * worker is not used again.
 */
export class ShardIndexWorker {
  private worker: Worker | null;
  private readonly port: MessageChannel['port1'];
  /** [0]: shards answered; [1]: progress beats (see `search-worker.ts`) */
  private readonly flag = new Int32Array(new SharedArrayBuffer(8));
  private answered = 0;
  private readonly stallMs: number;
  /** Shards this thread made because the worker showed no progress (it died, or stalled). */
  tookOver = 0;
  /** the {@link build} call in progress (requests go one at a time) */
  private pending: Promise<void> = Promise.resolve();

  constructor(options: { memoryMb?: number; stallMs?: number } = {}) {
    this.stallMs = options.stallMs ?? STALL_MS;
    const script = searchWorkerScript();
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(script.url, {
      execArgv: script.execArgv,
      // a young generation of 64 MB: with 16, a 100,000-item build's shards took about 650
      // scavenges (5 s of pauses) as each shard's index grows; about 150 with 64
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb ?? 512, maxYoungGenerationSizeMb: 64 },
    });
    // the build thread waits for the answers itself: no event keeps the process alive
    this.worker.unref();
    this.worker.on('error', () => this.abandon());
    this.worker.postMessage({ port: channel.port2, flag: this.flag }, [channel.port2]);
  }

  /**
   * The MiniSearch index JSON of `docs` (what `buildShardIndex(docs)` gives), made by the
   * worker without blocking this thread: it waits for the worker's answer with
   * `Atomics.waitAsync`, so the build thread keeps handing out render chunks and taking pages
   * meanwhile. When the worker shows no progress for `stallMs` (it died, or stalled), this
   * thread makes the shard itself (same bytes) and does not use the worker again. One shard at
   * a time: the next call waits for this one.
   */
  async build(docs: readonly SearchDoc[]): Promise<string> {
    const previous = this.pending;
    let release = () => {};
    this.pending = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      if (this.worker === null) return buildShardIndex(docs);
      this.port.postMessage({ docs });
      let beats = Atomics.load(this.flag, 1);
      let lastSign = performance.now();
      while (Atomics.load(this.flag, 0) === this.answered) {
        await waitForChange(this.flag, this.answered, Math.min(this.stallMs, 1000));
        const now = Atomics.load(this.flag, 1);
        if (now !== beats) {
          beats = now;
          lastSign = performance.now();
        } else if (
          Atomics.load(this.flag, 0) === this.answered &&
          performance.now() - lastSign >= this.stallMs
        ) {
          this.tookOver++;
          this.abandon();
          return buildShardIndex(docs);
        }
      }
      return this.answer(docs);
    } finally {
      release();
    }
  }

  /** The worker's answer to the request it has just acknowledged (flag[0] raised). */
  private answer(docs: readonly SearchDoc[]): string {
    this.answered++;
    const reply = receiveMessageOnPort(this.port)?.message as
      | { content: string }
      | { error: string }
      | undefined;
    if (reply && 'content' in reply) return reply.content;
    // an error in the worker: this thread's own attempt throws it (or gives the index)
    this.abandon();
    return buildShardIndex(docs);
  }

  private abandon(): void {
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
  }

  /** Ends the worker (its heap goes with it). */
  close(): void {
    this.abandon();
    this.port.close();
  }
}
