/**
 * The import's preparing thread (started by import-pipeline.ts): for an import's request body
 * it makes, batch by batch and ahead of the import, the parts of the new items' rows (their
 * fields' JSON, content hash and search text: `batchParts`), so that this JavaScript runs on
 * another core while the import's thread writes and commits the batch before. It parses the
 * body itself (the same text the request parsed) and checks each record with the same compiled
 * check; it never writes anything. At most `ahead` batches past the last one the import took.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import type { StoredContentType } from '@trelliscms/core';
import { batchParts, compileRecordCheck } from './import-prepare';

/** A job: one import's body to prepare. */
export interface StartMessage {
  kind: 'start';
  job: number;
  type: StoredContentType;
  /** The request body's JSON text (its `records` are the import's records). */
  source: string;
  ranges: Array<[number, number]>;
  bodyTime: number;
  ahead: number;
  /** [0]: the batch being prepared now, or -1 (the import waits for that one rather than make it too). */
  progress: Int32Array;
}

/** The import took batch `batch` (with these parts or its own): the thread may go on past it. */
export interface TakenMessage {
  kind: 'taken' | 'stop';
  job: number;
  batch: number;
}

const port = (workerData as { port: MessagePort }).port;

const jobs = new Map<number, { taken: number; stopped: boolean; wake: (() => void) | null }>();

/** Lets the import's messages in (taken, stop). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function run(start: StartMessage): Promise<void> {
  const state = { taken: -1, stopped: false, wake: null as (() => void) | null };
  jobs.set(start.job, state);
  try {
    const records = (JSON.parse(start.source) as { records?: unknown } | null)?.records;
    const check = compileRecordCheck(start.type);
    if (!Array.isArray(records) || check === null) {
      port.postMessage({ job: start.job, failed: true });
      return;
    }
    for (let batch = 0; batch < start.ranges.length; batch += 1) {
      await turn();
      while (!state.stopped && batch - state.taken > start.ahead) {
        await new Promise<void>((resolve) => {
          state.wake = resolve;
        });
      }
      if (state.stopped) return;
      // batches the import already made itself are skipped
      if (batch <= state.taken) batch = state.taken + 1;
      if (batch >= start.ranges.length) return;
      const [from, to] = start.ranges[batch]!;
      Atomics.store(start.progress, 0, batch);
      const parts = batchParts(start.type, check, records, from, to, start.bodyTime);
      port.postMessage({ job: start.job, batch, parts });
      Atomics.store(start.progress, 0, -1);
    }
  } catch {
    port.postMessage({ job: start.job, failed: true });
  } finally {
    Atomics.store(start.progress, 0, -1);
    jobs.delete(start.job);
  }
}

port.on('message', (message: StartMessage | TakenMessage | { kind: 'ping' }) => {
  if (message.kind === 'ping') {
    port.postMessage({ pong: true });
    return;
  }
  if (message.kind === 'start') {
    void run(message);
    return;
  }
  const state = jobs.get(message.job);
  if (!state) return;
  if (message.kind === 'stop') state.stopped = true;
  else state.taken = Math.max(state.taken, message.batch);
  state.wake?.();
  state.wake = null;
});
