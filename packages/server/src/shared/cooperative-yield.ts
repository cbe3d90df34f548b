import { setImmediate as immediate } from 'node:timers/promises';

/** How long work may hold the event loop before {@link cooperativeYield} lets it run, in ms. */
export const DEFAULT_SLICE_MS = 10;

/**
 * A checkpoint for long work on the main thread (imports, exports): call it between small
 * steps; once `sliceMs` have passed since the last yield it returns a promise that settles
 * after the event loop ran once (timers, I/O, other requests: `setImmediate`), else undefined
 * (`await` it either way). Work split by such checkpoints holds the loop for about `sliceMs`
 * plus one step at a time, so other requests are answered meanwhile and load shedding does not
 * see a blocked loop.
 */
export function cooperativeYield(sliceMs: number = DEFAULT_SLICE_MS): () => Promise<void> | undefined {
  let sliceStart = performance.now();
  return () => {
    if (performance.now() - sliceStart < sliceMs) return undefined;
    return immediate().then(() => {
      sliceStart = performance.now();
    });
  };
}
