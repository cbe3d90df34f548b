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

  it("gives each shard's index JSON as buildShardIndex does in this thread", () => {
    worker = new ShardIndexWorker();
    for (const shard of [0, 1, 2]) {
      const docs = docsOf(shard, 40 + shard * 17);
      const made = worker.build(docs);
      expect(made).toBe(buildShardIndex(docs));
      expect(JSON.parse(made).documentCount).toBe(docs.length);
    }
  });

  it('makes the shard in this thread once the worker is gone', () => {
    worker = new ShardIndexWorker();
    const docs = docsOf(5, 30);
    expect(worker.build(docs)).toBe(buildShardIndex(docs));
    worker.close();
    expect(worker.build(docs)).toBe(buildShardIndex(docs));
  });
});
