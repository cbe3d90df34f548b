import { createHash } from 'node:crypto';
import { type Graph, isEngineError, type Props } from '../engines/port';

/**
 * The records behind `Idempotency-Key` (http/plugins/idempotency.ts): one node per caller,
 * scope and key, in the graph the request writes to (the site's graph, or the platform graph),
 * so every server process on a data directory sees them and they outlive a restart.
 *
 * A record is first `pending` — claimed by the request that carries the key for the first
 * time, for a lease — then `done`, holding the answer to give again to a retry, until it
 * expires. A failed request releases its claim, so a retry runs again.
 */

/** The label of the records (no content type may take it as its nodeLabel). */
export const IDEMPOTENCY_LABEL = 'IdempotencyKey';

/** The answer a retry gets again. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What claiming a key found. */
export type KeyClaim =
  | { kind: 'claimed' }
  /** The key answered before, to the same request: give that answer again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used with another request (method, URL or body). */
  | { kind: 'mismatch' }
  /** A request with the key is still running (its lease has not run out). */
  | { kind: 'in_progress' };

/**
 * The node id of a key: a hash of the caller, the scope and the key (the key itself is not
 * stored). Ids start with `_`, which no content type name does, so they never meet item ids.
 */
export function idempotencyRecordId({
  scope,
  caller,
  key,
}: {
  scope: string;
  caller: string;
  key: string;
}): string {
  const digest = createHash('sha256').update(`${scope}\u0000${caller}\u0000${key}`).digest('base64url');
  return `_idempotency:${digest}`;
}

function isLive(props: Props, now: Date): boolean {
  if (typeof props.expiresAt !== 'string' || Date.parse(props.expiresAt) <= now.getTime()) return false;
  if (props.state === 'done') return true;
  return typeof props.leaseUntil === 'string' && Date.parse(props.leaseUntil) > now.getTime();
}

function answerOf(props: Props): StoredAnswer {
  return {
    status: Number(props.status),
    headers: (props.headers as Record<string, string> | undefined) ?? {},
    body: String(props.body ?? ''),
  };
}

/**
 * Claims a key for a request (`fingerprint`: a hash of its method, URL and body), or tells
 * what an earlier use of the key left: its answer (same request, done), `mismatch` (another
 * request), `in_progress` (same request, still running). A record that expired, or a pending
 * one whose lease ran out (its server stopped mid-request), is claimed afresh.
 */
export async function claimKey(
  graph: Graph,
  {
    id,
    fingerprint,
    now,
    ttlMs,
    leaseMs,
  }: { id: string; fingerprint: string; now: Date; ttlMs: number; leaseMs: number },
): Promise<KeyClaim> {
  const props: Props = {
    fingerprint,
    state: 'pending',
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
    leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return await graph.transaction(async (tx): Promise<KeyClaim> => {
        const node = await tx.getNode(id);
        if (node && isLive(node.props, now)) {
          if (node.props.fingerprint !== fingerprint) return { kind: 'mismatch' };
          return node.props.state === 'done'
            ? { kind: 'replay', answer: answerOf(node.props) }
            : { kind: 'in_progress' };
        }
        if (node) await tx.updateNode(id, { props });
        // createNode, not putNode: of two requests claiming the key at once, one gets `exists`.
        else await tx.createNode({ id, labels: [IDEMPOTENCY_LABEL], props });
        return { kind: 'claimed' };
      });
    } catch (error) {
      if (attempt === 0 && isEngineError(error, 'exists')) continue;
      throw error;
    }
  }
}

/** Stores the answer of a claimed key, for retries until the record expires. */
export async function completeKey(
  graph: Graph,
  { id, answer }: { id: string; answer: StoredAnswer },
): Promise<void> {
  const node = await graph.getNode(id);
  if (!node) return;
  await graph.updateNode(id, {
    props: {
      ...node.props,
      state: 'done',
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
    },
  });
}

/** Gives a claimed key up (the request failed), so a retry runs again. */
export async function releaseKey(graph: Graph, id: string): Promise<void> {
  await graph.deleteNode(id);
}

/** Deletes up to `limit` expired records; returns how many. */
export async function sweepExpiredKeys(
  graph: Graph,
  { now, limit = 500 }: { now: Date; limit?: number },
): Promise<number> {
  const page = await graph.findNodes({
    label: IDEMPOTENCY_LABEL,
    where: [{ prop: 'expiresAt', op: 'lte', value: now.toISOString() }],
    limit,
  });
  if (page.nodes.length === 0) return 0;
  await graph.transaction(async (tx) => {
    for (const node of page.nodes) await tx.deleteNode(node.id);
  });
  return page.nodes.length;
}
