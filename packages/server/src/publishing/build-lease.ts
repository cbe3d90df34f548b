import type { Graph } from '../engines/port';

/** Label of the build leases in a site graph: one node per site environment build queue. */
export const BUILD_LEASE_LABEL = 'BuildLease';

/** The lease node of a build queue (`prod`, `prod#ahead`). */
export function buildLeaseId(queue: string): string {
  return `buildlease:${queue}`;
}

/** Who holds a build queue's lease, for how long, and for which build. */
export interface BuildLease {
  holder: string;
  buildId: string;
  /** ms since the epoch. */
  until: number;
}

function toLease(props: Record<string, unknown>): BuildLease | null {
  if (typeof props.holder !== 'string' || typeof props.until !== 'number') return null;
  return { holder: props.holder, buildId: String(props.buildId ?? ''), until: props.until };
}

/** The lease of the queue as stored (held or expired), or null when none was ever taken or it was given back. */
export async function readBuildLease(graph: Graph, queue: string): Promise<BuildLease | null> {
  const node = await graph.getNode(buildLeaseId(queue));
  return node ? toLease(node.props) : null;
}

/**
 * Takes (or renews) the lease of a site environment's build queue for `holder`, with a
 * compare-and-set in one transaction: it succeeds when nobody holds it, when its holder's lease
 * has expired (the holder died or stalled: taken over), or when `holder` holds it already.
 * Returns the lease taken, or the one held by another server (`taken: false`).
 */
export async function takeBuildLease(
  graph: Graph,
  input: { queue: string; holder: string; buildId: string; nowMs: number; leaseMs: number },
): Promise<{ taken: true; previous: BuildLease | null } | { taken: false; heldBy: BuildLease }> {
  return graph.transaction(async (tx) => {
    const id = buildLeaseId(input.queue);
    const node = await tx.getNode(id);
    const current = node ? toLease(node.props) : null;
    if (current && current.holder !== input.holder && current.until > input.nowMs) {
      return { taken: false as const, heldBy: current };
    }
    await tx.putNode({
      id,
      labels: [BUILD_LEASE_LABEL],
      props: {
        queue: input.queue,
        holder: input.holder,
        buildId: input.buildId,
        until: input.nowMs + input.leaseMs,
      },
    });
    return { taken: true as const, previous: current };
  });
}

/** Gives the lease back when `holder` still holds it (the next server need not wait for it to expire). */
export async function releaseBuildLease(
  graph: Graph,
  input: { queue: string; holder: string },
): Promise<void> {
  await graph.transaction(async (tx) => {
    const id = buildLeaseId(input.queue);
    const node = await tx.getNode(id);
    if (!node || node.props.holder !== input.holder) return;
    await tx.putNode({
      id,
      labels: [BUILD_LEASE_LABEL],
      props: { queue: input.queue, holder: null, until: null },
    });
  });
}
