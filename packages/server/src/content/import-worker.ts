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
import { batchParts, compileRecordCheck, MAKING, TAKEN } from './import-prepare';

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
  /**
   * Shared with the import: [MAKING] the batch being prepared now, or -1 (the import waits for
   * that one rather than make it too); [TAKEN] the last batch the import took (with these parts
   * or its own; past the last batch: the import is over). Shared memory rather than messages:
   * the import's thread then wakes this one only when it waits.
   */
  progress: Int32Array;
}

const port = (workerData as { port: MessagePort }).port;

/** `Atomics.waitAsync` (Node ≥ 16; not in this project's TypeScript lib). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync: (
      array: Int32Array,
      index: number,
      value: number,
    ) => { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** Lets other messages in (another import's start) between batches. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function run(start: StartMessage): Promise<void> {
  const { progress } = start;
  try {
    const records = (JSON.parse(start.source) as { records?: unknown } | null)?.records;
    const check = compileRecordCheck(start.type);
    if (!Array.isArray(records) || check === null) {
      port.postMessage({ job: start.job, failed: true });
      return;
    }
    for (let batch = 0; batch < start.ranges.length; batch += 1) {
      await turn();
      for (let taken = Atomics.load(progress, TAKEN); batch - taken > start.ahead; ) {
        const waiting = waitAsync(progress, TAKEN, taken);
        if (waiting.async) await waiting.value;
        taken = Atomics.load(progress, TAKEN);
      }
      // batches the import already made itself are skipped (all of them once it is over)
      const taken = Atomics.load(progress, TAKEN);
      if (batch <= taken) batch = taken + 1;
      if (batch >= start.ranges.length) return;
      const [from, to] = start.ranges[batch]!;
      Atomics.store(progress, MAKING, batch);
      const parts = batchParts(start.type, check, records, from, to, start.bodyTime);
      port.postMessage({ job: start.job, batch, parts });
      Atomics.store(progress, MAKING, -1);
    }
  } catch {
    port.postMessage({ job: start.job, failed: true });
  } finally {
    Atomics.store(progress, MAKING, -1);
  }
}

port.on('message', (message: StartMessage | { kind: 'ping' }) => {
  if (message.kind === 'ping') port.postMessage({ pong: true });
  else void run(message);
});
