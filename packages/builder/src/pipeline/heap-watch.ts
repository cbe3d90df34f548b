import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection (`gc` of `--expose-gc`), made available once; null where it cannot be. */
let fullCollection: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (fullCollection === undefined) {
    try {
      // the flag applies to contexts made after it: a new context's `gc` is the isolate's
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('typeof gc === "function" ? gc : null') as unknown;
      fullCollection = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      fullCollection = null;
    }
  }
  return fullCollection;
}

/**
 * Bounds this thread's heap while the render workers run: `check()` (called as pages come)
 * asks V8 for a full collection once the heap in use has grown since the last one (or since the
 * watch began) by `growthBytes`, or by `ratio` times the heap in use after it when that is more
 * (a full collection costs in proportion to what lives: a heap of gigabytes, as at 1,000,000
 * items, is collected less often). A large build's build thread allocates at a steady rate
 * while it takes pages (search documents, results, the dependency spill's text), and most of
 * it dies old; V8 collects the old generation only when it nears a limit set from the heap's
 * size, which at 100,000 items lets the heap grow by hundreds of MB of garbage while the
 * render workers' heaps are at their largest too. Returns whether it collected.
 */
export function heapWatch(growthBytes: number, ratio = 0.5): { check(): boolean } {
  let base = getHeapStatistics().used_heap_size;
  return {
    check() {
      if (getHeapStatistics().used_heap_size - base < Math.max(growthBytes, base * ratio)) return false;
      const gc = collector();
      if (!gc) return false;
      gc();
      base = getHeapStatistics().used_heap_size;
      return true;
    },
  };
}
