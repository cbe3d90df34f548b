import type { MessagePort, Worker } from 'node:worker_threads';
import { startWorker } from '../../shared/worker-script';
import type { DetachedNodeRun, Props } from '../port';
import { EngineError, type EngineErrorKind } from '../port';
import { assertNodeId } from '../shared/identifiers';
import type { DetachedRunBatch } from './detached-run';
import type { SentError, WriterAnswer, WriterRequest, WriterStats } from './detached-writer-worker';
import { checkNodeRun, type UniqueConstraints } from './graph-store';

/** Distributes the requests' answers; rejects every pending one when the thread is gone. */
class WriterThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private nextId = 1;
  /** Why the thread is gone (it exited or failed), or null while it runs. */
  private gone: Error | null = null;

  constructor() {
    // dist/detached-writer-worker.js, or detached-writer-worker.ts through tsx from the sources
    ({ worker: this.worker, port: this.port } = startWorker(import.meta.url, 'detached-writer-worker'));
    // the thread keeps no process alive: the port is ref'd only while a request is pending
    this.port.unref();
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`The detached writer's thread exited (${code})`)));
    this.port.on('message', (answer: WriterAnswer) => this.receive(answer));
  }

  get alive(): boolean {
    return this.gone === null;
  }

  /** Sends `request` (its id given here) and resolves with the thread's answer. */
  request<T>(request: DistributiveOmit<WriterRequest, 'id'>): Promise<T> {
    if (this.gone !== null) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.size === 1) this.port.ref();
      try {
        this.port.postMessage({ ...request, id } as WriterRequest);
      } catch (error) {
        // nothing was sent (a value the structured clone cannot copy): no answer will come, so
        // the request is not left pending (a pending request keeps the port, and the process, alive)
        this.pending.delete(id);
        if (this.pending.size === 0) this.port.unref();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.pending.size;
  }

  private receive(answer: WriterAnswer): void {
    const waiting = this.pending.get(answer.id);
    if (waiting === undefined) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.port.unref();
    if (answer.ok) waiting.resolve(answer.value);
    else waiting.reject(received(answer.error));
  }

  private fail(error: unknown): void {
    if (this.gone !== null) return;
    this.gone = error instanceof Error ? error : new Error(String(error));
    for (const waiting of this.pending.values()) waiting.reject(this.gone);
    this.pending.clear();
    this.port.unref();
    if (thread === this) thread = null;
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An error sent by the thread, as it was thrown there (EngineError with its kind and details; a libsql error's code). */
function received(error: SentError): Error {
  if (error.name === 'EngineError' && error.kind !== undefined)
    return new EngineError(error.kind as EngineErrorKind, error.message, (error.details ?? {}) as Props);
  const made = new Error(error.message) as Error & { code?: string };
  made.name = error.name;
  if (error.code !== undefined) made.code = error.code;
  return made;
}

/** The process's detached writer's thread, started by the first graph that writes a detached run. */
let thread: WriterThread | null = null;

/**
 * The graph's second write connection, for EmbeddedGraph's `createNodeRunDetached`: it lives
 * in a worker thread (one per process, detached-writer-worker.ts) with libsql's synchronous
 * driver, and writes a batch — BEGIN IMMEDIATE, the `absent` probe, `max(rid)`, the run's
 * statements, the audit row, COMMIT ({@link DetachedRunWriter}) — as one message there and
 * one answer back, while the graph's thread goes on (an import checks its next batch and makes
 * its rows meanwhile). The caller holds the graph's write mutex while a batch is in flight, so
 * this connection never meets the graph's own write connection's lock.
 */
export class DetachedWriter {
  private closed = false;

  private constructor(
    private readonly writerThread: WriterThread,
    private readonly handle: number,
  ) {}

  /** Opens the connection in the thread (started if it is not running) with the graph's write pragmas. */
  static async open(file: string, auditKey: Uint8Array, pragmas: readonly string[]): Promise<DetachedWriter> {
    const running = thread?.alive ? thread : new WriterThread();
    thread = running;
    const handle = await running.request<number>({ kind: 'open', file, auditKey, pragmas: [...pragmas] });
    return new DetachedWriter(running, handle);
  }

  /** Whether the connection can still be used (its thread runs). */
  get usable(): boolean {
    return !this.closed && this.writerThread.alive;
  }

  /**
   * Checks `batch` here (as createNodeRun checks a run: `invalid_argument`, `exists` for an id
   * repeated in it) and sends it to the thread — synchronously, in the call: batches sent one
   * after the other are written in that order — with each row's unique props cut down to the
   * props `uniques` (the graph's constraints) names for the run's labels: the thread declines
   * a run whose labels carry a constraint outside those (declared by another process since),
   * and the caller then writes it the ordinary way. The caller holds the graph's write mutex.
   */
  async write(batch: DetachedNodeRun, uniques: UniqueConstraints): Promise<'written' | 'declined'> {
    checkNodeRun(batch.run);
    if (!Array.isArray(batch.absent))
      throw new EngineError('invalid_argument', 'absent must be a list of ids');
    for (const id of batch.absent) assertNodeId(id);
    const names = new Set<string>();
    for (const label of batch.run.labels) for (const prop of uniques.get(label) ?? []) names.add(prop);
    const uniqueNames = [...names];
    const empty = {};
    const uniqueProps = batch.run.uniqueProps.map((props) => {
      if (uniqueNames.length === 0) return empty;
      const kept: Props = {};
      for (const name of uniqueNames) if (name in props) kept[name] = props[name];
      return kept;
    });
    const sent: DetachedRunBatch = {
      run: { ...batch.run, uniqueProps },
      uniqueNames,
      absent: batch.absent,
      audit: batch.audit,
    };
    if (batch.chain !== undefined) {
      const { id, seq } = batch.chain;
      if (typeof id !== 'string' || !Number.isInteger(seq) || seq < 0)
        throw new EngineError('invalid_argument', 'chain is an id and a sequence number from 0');
      sent.chain = { id, seq };
    }
    return this.writerThread.request<'written' | 'declined'>({
      kind: 'write',
      handle: this.handle,
      batch: sent,
    });
  }

  /** Closes the connection in the thread (the thread itself runs on for other graphs, unref'd). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.writerThread.alive) return;
    await this.writerThread.request({ kind: 'close', handle: this.handle }).catch(() => undefined);
  }
}

/** Ends the process's detached writer's thread, if one runs (tests); the next detached write starts another. */
export async function stopDetachedWriterThread(): Promise<void> {
  const running = thread;
  thread = null;
  if (running) await running.terminate();
}

/** Requests to the process's detached writer's thread not answered yet (tests: 0 when idle). */
export function detachedWriterWaiting(): number {
  return thread?.waiting ?? 0;
}

/** What the process's detached writer's thread did so far (benches), or null when it does not run. */
export async function detachedWriterStats(): Promise<WriterStats | null> {
  if (thread === null || !thread.alive) return null;
  return thread.request<WriterStats>({ kind: 'stats' });
}
