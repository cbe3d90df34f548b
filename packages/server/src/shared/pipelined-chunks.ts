/**
 * Calls `call` on each chunk of `size` items in order, making the call for chunk n+1 before
 * awaiting chunk n (at most two outstanding), with a checkpoint (`tick`, see cooperativeYield)
 * before each call. On Neo4j a transaction's statements queue on its connection, so this process
 * prepares and sends the next chunk while the server runs the current one; on an engine whose
 * calls do their work when made (embedded), the calls run one after the other as before.
 * Returns each chunk's result in order. When a call fails, the one made after it is settled
 * first and the failure is thrown (the caller's transaction rolls back what either wrote).
 */
export async function pipelinedChunks<T, R>({
  items,
  size,
  call,
  tick,
}: {
  items: readonly T[];
  size: number;
  call: (chunk: T[]) => Promise<R>;
  tick: () => Promise<void> | undefined;
}): Promise<R[]> {
  const results: R[] = [];
  let previous: Promise<R> | null = null;
  for (let at = 0; at < items.length; at += size) {
    await tick();
    const current = call(items.slice(at, at + size));
    // Awaited below; until then a failure must not count as unhandled.
    current.catch(() => {});
    if (previous !== null) {
      try {
        results.push(await previous);
      } catch (error) {
        await current.catch(() => {});
        throw error;
      }
    }
    previous = current;
  }
  if (previous !== null) results.push(await previous);
  return results;
}
