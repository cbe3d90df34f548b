import { type MessagePort, parentPort } from 'node:worker_threads';
import { buildShardIndex, type SearchDoc } from './search-index';

// The search-index worker: builds one shard's MiniSearch index JSON per request (see
// `shard-index-worker.ts`). Its heap holds one shard at a time, and what building it leaves
// behind is collected within this worker's small heap instead of growing the build thread's.
if (!parentPort) throw new Error('search-worker runs as a worker thread');

/** A request: the documents of one shard (the answer goes to the port, and flag[0] is raised). */
export interface ShardRequest {
  docs: SearchDoc[];
}

parentPort.once('message', (setup: { port: MessagePort; flag: Int32Array }) => {
  const { port, flag } = setup;
  // a beat (flag[1]) per slice of documents added and once serialized: the build thread takes
  // a shard over when the beats stop (a worker that died gives none)
  const beat = () => {
    Atomics.add(flag, 1, 1);
    Atomics.notify(flag, 0);
  };
  port.on('message', (request: ShardRequest) => {
    let answer: { content: string } | { error: string };
    try {
      answer = { content: buildShardIndex(request.docs, beat) };
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
});
