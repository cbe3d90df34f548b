import { describe, expect, it } from 'vitest';
import { pipelinedChunks } from './pipelined-chunks';

const noTick = () => undefined;

describe('pipelinedChunks', () => {
  it('makes the next call before the previous one settles, and returns results in order', async () => {
    const log: string[] = [];
    const releases: Array<() => void> = [];
    const call = (chunk: number[]) => {
      log.push(`call ${chunk.join(',')}`);
      return new Promise<number>((resolve) => {
        releases.push(() => {
          log.push(`done ${chunk.join(',')}`);
          resolve(chunk.reduce((a, b) => a + b, 0));
        });
      });
    };
    const running = pipelinedChunks({ items: [1, 2, 3, 4, 5], size: 2, call, tick: noTick });
    // Settle each call as soon as it is made, in order.
    for (let settled = 0; settled < 3; ) {
      await new Promise((resolve) => setImmediate(resolve));
      while (releases.length > settled) releases[settled++]!();
    }
    expect(await running).toEqual([3, 7, 5]);
    // The second chunk was sent while the first was still running; never more than two at once.
    expect(log.slice(0, 3)).toEqual(['call 1,2', 'call 3,4', 'done 1,2']);
    expect(log.indexOf('call 5')).toBeGreaterThan(log.indexOf('done 1,2'));
  });

  it('throws the first failure after settling the call made after it, and makes no further call', async () => {
    const calls: number[][] = [];
    let laterSettled = false;
    const call = async (chunk: number[]) => {
      calls.push(chunk);
      if (chunk[0] === 1) {
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('refused');
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      laterSettled = true;
      return chunk.length;
    };
    const error = await pipelinedChunks({ items: [1, 2, 3, 4, 5, 6], size: 2, call, tick: noTick }).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toBe('refused');
    expect(calls).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(laterSettled).toBe(true);
  });

  it('makes no call for no items and waits at each checkpoint', async () => {
    expect(await pipelinedChunks({ items: [], size: 3, call: async () => 1, tick: noTick })).toEqual([]);
    let ticks = 0;
    const tick = () => {
      ticks += 1;
      return Promise.resolve();
    };
    expect(await pipelinedChunks({ items: [1, 2, 3], size: 1, call: async ([n]) => n, tick })).toEqual([
      1, 2, 3,
    ]);
    expect(ticks).toBe(3);
  });
});
