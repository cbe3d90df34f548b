import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

// The page writer's thread (see `page-thread.ts`): writes the pages of a write session's local
// folder with synchronous calls, a batch per message, and answers each batch. A thread that does
// nothing else makes the system calls cheaper than libuv's pool does (no wake-up and callback
// per call: `mkdir`, `open`, `write`, `close` for each page), and keeps them off the build thread.
if (!parentPort) throw new Error('page-write-worker runs as a worker thread');
const port = parentPort;

/** A batch of pages: the page `files[i]` is `bytes[ends[i - 1] .. ends[i])`. */
export interface PageBatch {
  files: string[];
  bytes: Uint8Array;
  ends: number[];
}

/** The answer to a batch: how many pages it had, and the first failed write's message. */
export interface PageBatchAnswer {
  pages: number;
  error?: string;
}

const { root } = workerData as { root: string };
/** folders made (or found) by this thread */
const made = new Set<string>();
/** after a failed write nothing more is written (the build stops) */
let failed = false;

/** One folder: one `mkdir` when this thread made its parent, else `mkdir -p` (as `folderWriter`). */
function makeFolder(dir: string): void {
  if (made.has(dirname(dir))) {
    try {
      mkdirSync(dir);
      return;
    } catch (error) {
      // something already there (a folder of an earlier build, or not a folder)
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  mkdirSync(dir, { recursive: true });
}

port.on('message', (batch: PageBatch) => {
  const answer: PageBatchAnswer = { pages: batch.files.length };
  if (!failed) {
    try {
      let start = 0;
      for (let i = 0; i < batch.files.length; i++) {
        const file = join(root, batch.files[i]!);
        const dir = dirname(file);
        if (!made.has(dir)) {
          makeFolder(dir);
          made.add(dir);
        }
        const end = batch.ends[i]!;
        writeFileSync(file, batch.bytes.subarray(start, end));
        start = end;
      }
    } catch (error) {
      failed = true;
      answer.error = error instanceof Error ? error.message : String(error);
    }
  }
  port.postMessage(answer);
});
