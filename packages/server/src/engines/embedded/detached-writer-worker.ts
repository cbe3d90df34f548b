/**
 * The detached writer's thread (started by detached-writer.ts, one per process): holds a write
 * connection per graph that asked for one ({@link DetachedRunWriter}, libsql's synchronous
 * driver) and writes each batch it is sent in one synchronous call — BEGIN IMMEDIATE to COMMIT
 * — answering with one message. The graph's thread holds the graph's write mutex meanwhile.
 *
 * When another process holds a graph file's write lock, the batch is not waited for in that
 * call: it and every later request for the same graph wait in the graph's queue here, the batch
 * is tried again on this thread's timers (SQLite's busy handler's pauses), and the other graphs'
 * batches are written meanwhile. After WRITE_LOCK_WAIT_MS of trying it is answered with
 * SQLite's SQLITE_BUSY error, as the graph's own connection fails a write, and the queue goes on.
 */
import { readFileSync } from 'node:fs';
import { type MessagePort, workerData } from 'node:worker_threads';
import { WRITE_LOCK_WAIT_MS, writeLockPause } from './connection';
import { type DetachedRunBatch, DetachedRunWriter, WriteLockHeld } from './detached-run';

/** A request of the graph's thread; each is answered once, with its `id`. */
export type WriterRequest =
  | { kind: 'ping'; id: number }
  | { kind: 'open'; id: number; file: string; auditKey: Uint8Array; pragmas: string[] }
  | { kind: 'write'; id: number; handle: number; batch: DetachedRunBatch }
  | { kind: 'close'; id: number; handle: number }
  | { kind: 'stats'; id: number };

/** What the thread did so far (benches): batches written or declined, wall ms in them, this thread's CPU ms. */
export interface WriterStats {
  batches: number;
  /** Wall time inside the batches' synchronous calls (BEGIN IMMEDIATE to COMMIT). */
  writeMs: number;
  /** Of which in COMMIT. */
  commitMs: number;
  /** This thread's CPU time since it started (Linux: /proc, 10 ms ticks; NaN elsewhere). */
  cpuMs: number;
}

/** An error as sent back: an EngineError's kind and details, a libsql error's code. */
export interface SentError {
  name: string;
  message: string;
  kind?: string;
  code?: string;
  details?: Record<string, unknown>;
}

export type WriterAnswer =
  | { id: number; ok: true; value?: 'written' | 'declined' | number | WriterStats }
  | { id: number; ok: false; error: SentError };

const port = (workerData as { port: MessagePort }).port;
const writers = new Map<number, DetachedRunWriter>();
let nextHandle = 1;
const stats: WriterStats = { batches: 0, writeMs: 0, commitMs: 0, cpuMs: 0 };

/** This thread's CPU time in ms (user + system, from /proc/thread-self/stat), or NaN. */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function sent(error: unknown): SentError {
  const e = (error ?? {}) as Partial<SentError> & { message?: unknown };
  const out: SentError = {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
  };
  if (typeof e.kind === 'string') out.kind = e.kind;
  if (typeof e.code === 'string') out.code = e.code;
  if (e.details !== undefined && typeof e.details === 'object' && e.details !== null) {
    try {
      out.details = structuredClone(e.details);
    } catch {
      // details that cannot be sent are left out
    }
  }
  return out;
}

/** What a request waiting for another process's write lock gets: tried again later. */
const HELD = Symbol('held');
/** The SQLITE_BUSY error of the last attempt that met a held write lock. */
let lastBusy: unknown = null;

function handle(request: WriterRequest): WriterAnswer | typeof HELD {
  try {
    switch (request.kind) {
      case 'ping':
        return { id: request.id, ok: true };
      case 'open': {
        const writer = new DetachedRunWriter(request.file, request.auditKey, request.pragmas);
        const id = nextHandle++;
        writers.set(id, writer);
        return { id: request.id, ok: true, value: id };
      }
      case 'write': {
        const writer = writers.get(request.handle);
        if (writer === undefined) throw new Error('The detached write connection is closed');
        const started = performance.now();
        let lockHeld = false;
        try {
          return { id: request.id, ok: true, value: writer.write(request.batch, stats) };
        } catch (error) {
          if (!(error instanceof WriteLockHeld)) throw error;
          // nothing done: not counted; tried again later
          lockHeld = true;
          lastBusy = error.cause;
          return HELD;
        } finally {
          if (!lockHeld) {
            stats.batches += 1;
            stats.writeMs += performance.now() - started;
          }
        }
      }
      case 'stats':
        return { id: request.id, ok: true, value: { ...stats, cpuMs: threadCpuMs() } };
      case 'close': {
        writers.get(request.handle)?.close();
        writers.delete(request.handle);
        return { id: request.id, ok: true };
      }
    }
  } catch (error) {
    return { id: request.id, ok: false, error: sent(error) };
  }
}

/**
 * Per graph connection (handle) whose head request met another process's write lock: its
 * requests in their order, the head's first attempt's time and its attempts so far.
 */
const held = new Map<number, { requests: WriterRequest[]; since: number; attempts: number }>();

function handleOf(request: WriterRequest): number | undefined {
  return request.kind === 'write' || request.kind === 'close' ? request.handle : undefined;
}

/** Answers `requests` of one handle in order, until one meets a held write lock (it and the rest then wait). */
function serve(key: number | undefined, requests: WriterRequest[], since = performance.now()): void {
  while (requests.length > 0) {
    const request = requests[0] as WriterRequest;
    const answer = handle(request);
    if (answer === HELD && key !== undefined) {
      const waited = performance.now() - since;
      const entry = held.get(key) ?? { requests, since, attempts: 0 };
      if (waited < WRITE_LOCK_WAIT_MS) {
        held.set(key, entry);
        setTimeout(() => retry(key), writeLockPause(entry.attempts));
        entry.attempts += 1;
        return;
      }
    }
    // answered; a lock still held after WRITE_LOCK_WAIT_MS fails as the graph's own connection's write does
    port.postMessage(answer === HELD ? { id: request.id, ok: false, error: sent(lastBusy) } : answer);
    requests.shift();
    if (key !== undefined) held.delete(key);
    since = performance.now();
  }
}

function retry(key: number): void {
  const entry = held.get(key);
  if (entry !== undefined) serve(key, entry.requests, entry.since);
}

port.on('message', (request: WriterRequest) => {
  const key = handleOf(request);
  const waiting = key === undefined ? undefined : held.get(key);
  // behind a request of the same graph that waits for the write lock: in its order
  if (waiting !== undefined) waiting.requests.push(request);
  else serve(key, [request]);
});
