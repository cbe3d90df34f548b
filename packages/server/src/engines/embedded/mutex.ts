/** A FIFO async mutex; `tryLock` lets an uncontended write run synchronously. */
export class Mutex {
  private locked = false;
  private readonly waiters: Array<() => void> = [];

  /** Takes the lock when it is free; returns whether it did. */
  tryLock(): boolean {
    if (this.locked) return false;
    this.locked = true;
    return true;
  }

  /** Resolves once the caller holds the lock. */
  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Whether a caller waits for the lock. */
  get contended(): boolean {
    return this.waiters.length > 0;
  }

  /** Hands the lock to the next waiter, or frees it. */
  unlock(): void {
    const next = this.waiters.shift();
    if (next === undefined) this.locked = false;
    else next();
  }
}
