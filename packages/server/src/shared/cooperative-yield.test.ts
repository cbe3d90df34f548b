import { describe, expect, it } from 'vitest';
import { cooperativeYield } from './cooperative-yield';

describe('cooperativeYield', () => {
  it('returns nothing within a slice, and lets a due timer run once the slice is used up', async () => {
    const tick = cooperativeYield(20);
    expect(tick()).toBeUndefined();
    let fired = false;
    setTimeout(() => {
      fired = true;
    }, 0);
    const until = performance.now() + 30;
    while (performance.now() < until) {
      // work holding the loop past the slice
    }
    const pause = tick();
    expect(pause).toBeInstanceOf(Promise);
    await pause;
    // setImmediate runs after the timers phase of the next turn: the due timer ran first
    await new Promise((resolve) => setImmediate(resolve));
    expect(fired).toBe(true);
    // a new slice starts after the yield
    expect(tick()).toBeUndefined();
  });
});
