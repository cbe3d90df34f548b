import { afterEach, describe, expect, it } from 'vitest';
import { buildShardIndex, type SearchDoc } from './search-index';
import { ShardIndexWorker } from './shard-index-worker';

function docsOf(shard: number, count: number): SearchDoc[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `post:s${shard}-${i}`,
    url: `/posts/s${shard}-${i}/`,
    title: `Post ${i} of shard ${shard}`,
    type: 'post',
    text: `words ${i % 7} zucchini ${shard} garden ${i * 13} ünïcödé — “quoted”`,
  }));
}

describe('ShardIndexWorker', () => {
  let worker: ShardIndexWorker | null = null;
  afterEach(() => {
    worker?.close();
    worker = null;
  });

  it("gives each shard's index JSON as buildShardIndex does in this thread", async () => {
    worker = new ShardIndexWorker();
    for (const shard of [0, 1, 2]) {
      const docs = docsOf(shard, 40 + shard * 17);
      const made = await worker.build(docs);
      expect(made).toBe(buildShardIndex(docs));
      expect(JSON.parse(made).documentCount).toBe(docs.length);
    }
  });

  it('makes the shard in this thread once the worker is gone', async () => {
    worker = new ShardIndexWorker();
    const docs = docsOf(5, 30);
    expect(await worker.build(docs)).toBe(buildShardIndex(docs));
    worker.close();
    expect(await worker.build(docs)).toBe(buildShardIndex(docs));
  });

  it('does not take a shard over from a worker that is making it', async () => {
    worker = new ShardIndexWorker({ stallMs: 20_000 });
    const docs = docsOf(11, 20_000);
    expect(await worker.build(docs)).toBe(buildShardIndex(docs));
    expect(worker.tookOver).toBe(0);
  });

  it('gives the same JSON without blocking the event loop', async () => {
    worker = new ShardIndexWorker();
    const docs = docsOf(12, 20_000);
    // this thread's timers keep running while the worker makes the shard
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let made: string;
    try {
      made = await worker.build(docs);
    } finally {
      clearInterval(timer);
    }
    expect(made).toBe(buildShardIndex(docs));
    expect(ticks).toBeGreaterThan(0);
    expect(worker.tookOver).toBe(0);
  });

  it('answers overlapping calls in order, each with its own shard', async () => {
    worker = new ShardIndexWorker();
    const shards = [20, 21, 22].map((shard) => docsOf(shard, 50 + shard));
    const made = await Promise.all(shards.map((docs) => worker!.build(docs)));
    expect(made).toEqual(shards.map((docs) => buildShardIndex(docs)));
  });

  // A worker that dies while the build thread waits (here: out of memory under a tiny heap
  // limit) cannot be heard of through its events; its missing progress beats are the sign. Before
  // them, the build thread waited two minutes (beyond this test's 60 s limit).
  it('takes the shard over when the worker dies while it waits', {
    timeout: 60_000,
  }, async () => {
    worker = new ShardIndexWorker({ memoryMb: 2, stallMs: 1_000 });
    const docs = docsOf(13, 20_000);
    const made = await worker.build(docs);
    expect(worker.tookOver).toBe(1);
    expect(made).toBe(buildShardIndex(docs));
    // not used again: the next shard is made here at once
    const next = docsOf(14, 10);
    expect(await worker.build(next)).toBe(buildShardIndex(next));
    expect(worker.tookOver).toBe(1);
  });
});
