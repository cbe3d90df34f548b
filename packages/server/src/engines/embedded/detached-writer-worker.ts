/**
 * The detached writer's thread (started by detached-writer.ts, one per process): holds a write
 * connection per graph that asked for one ({@link DetachedRunWriter}, libsql's synchronous
 * driver) and writes each batch it is sent in one synchronous call — BEGIN IMMEDIATE to COMMIT
 * — answering with one message. The graph's thread holds the graph's write mutex meanwhile.
 */
import { readFileSync } from 'node:fs';
import { type MessagePort, workerData } from 'node:worker_threads';
import { type DetachedRunBatch, DetachedRunWriter } from './detached-run';

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

function handle(request: WriterRequest): WriterAnswer {
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
        try {
          return { id: request.id, ok: true, value: writer.write(request.batch, stats) };
        } finally {
          stats.batches += 1;
          stats.writeMs += performance.now() - started;
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

port.on('message', (request: WriterRequest) => port.postMessage(handle(request)));
