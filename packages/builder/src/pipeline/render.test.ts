import { describe, expect, it } from 'vitest';
import type { WriteSession } from '../deploy/types';
import { pageWriter } from './render';

/** A session whose writes finish only when the test lets them. */
function heldSession() {
  const pending: Array<() => void> = [];
  const written: string[] = [];
  const session: WriteSession = {
    writeFile: (path) =>
      new Promise<void>((resolve) => {
        pending.push(() => {
          written.push(path);
          resolve();
        });
      }),
    carry: async () => {},
    commit: async () => ({ bucket: 'test', keyPrefix: '' }),
    abort: async () => {},
  };
  const release = async (count: number) => {
    for (const finish of pending.splice(0, count)) finish();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { session, pending, written, release };
}

const pages = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ file: `p${from + i}.html`, html: 'x' }));

describe('the render stage page writer', () => {
  it('writes a few pages at a time and asks the renderer to wait once pages pile up', async () => {
    const held = heldSession();
    const writer = pageWriter(held.session);
    expect(writer.add(pages(0, 100))).toBeUndefined();
    expect(held.pending.length).toBe(16);
    // 100 + 200 pages given, 16 being written: more than 256 wait, so the renderer must wait
    const behind = writer.add(pages(100, 200));
    expect(behind).toBeInstanceOf(Promise);
    let settled = false;
    void behind?.then(() => {
      settled = true;
    });
    await held.release(16);
    expect(settled).toBe(false);
    // once fewer than 256 wait, the renderer may go on
    while (!settled) await held.release(16);
    const waiting = 300 - held.written.length - held.pending.length;
    expect(waiting).toBeLessThan(256);
    expect(waiting).toBeGreaterThan(256 - 16 - 1);
    const drained = writer.drain();
    while (held.pending.length > 0) await held.release(16);
    await drained;
    expect(held.written.length).toBe(300);
  });
});
