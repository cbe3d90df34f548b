/**
 * The detached writer's thread (started by detached-writer.ts, one per process): holds a write
 * connection per graph that asked for one ({@link DetachedRunWriter}, libsql's synchronous
 * driver) and writes each batch it is sent in one synchronous call — BEGIN IMMEDIATE to COMMIT
 * — answering with one message. The graph's thread holds the graph's write mutex meanwhile.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { type DetachedRunBatch, DetachedRunWriter } from './detached-run';

/** A request of the graph's thread; each is answered once, with its `id`. */
export type WriterRequest =
  | { kind: 'ping'; id: number }
  | { kind: 'open'; id: number; file: string; auditKey: Uint8Array; pragmas: string[] }
  | { kind: 'write'; id: number; handle: number; batch: DetachedRunBatch }
  | { kind: 'close'; id: number; handle: number };

/** An error as sent back: an EngineError's kind and details, a libsql error's code. */
export interface SentError {
  name: string;
  message: string;
  kind?: string;
  code?: string;
  details?: Record<string, unknown>;
}

export type WriterAnswer =
  | { id: number; ok: true; value?: 'written' | 'declined' | number }
  | { id: number; ok: false; error: SentError };

const port = (workerData as { port: MessagePort }).port;
const writers = new Map<number, DetachedRunWriter>();
let nextHandle = 1;

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
        return { id: request.id, ok: true, value: writer.write(request.batch) };
      }
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
