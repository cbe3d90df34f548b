import { randomUUID } from 'node:crypto';
import {
  sortableId,
  TrellisError,
  type TrellisEvent,
  type WebhookAttempt,
  type WebhookDelivery,
} from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';

/** Deliveries (the queue and its history) are nodes of the site graph with this label. */
export const WEBHOOK_DELIVERY_LABEL = 'WebhookDelivery';

/** How many attempts a delivery keeps (the latest ones). */
const KEPT_ATTEMPTS = 50;

function toDelivery(node: GraphNode): WebhookDelivery {
  const p = node.props;
  const event = p.event as TrellisEvent;
  return {
    id: node.id,
    webhookId: String(p.webhookId),
    eventId: event.id,
    eventType: event.type,
    status: p.status as WebhookDelivery['status'],
    attempts: Array.isArray(p.attempts) ? (p.attempts as WebhookAttempt[]) : [],
    nextAttemptAt: typeof p.nextAttemptAt === 'string' ? p.nextAttemptAt : null,
    createdAt: String(p.createdAt),
    redeliveryOf: typeof p.redeliveryOf === 'string' ? p.redeliveryOf : null,
    event,
  };
}

function isClaimed(node: GraphNode, now: Date): boolean {
  const until = node.props.claimUntil;
  return typeof until === 'string' && Date.parse(until) > now.getTime();
}

/** Queues `event` for the subscription `webhookId`: due at once. */
export async function enqueueDelivery({
  graph,
  webhookId,
  event,
  now,
  redeliveryOf,
}: {
  graph: Graph;
  webhookId: string;
  event: TrellisEvent;
  now: Date;
  redeliveryOf?: string;
}): Promise<WebhookDelivery> {
  const node: GraphNode = {
    id: sortableId('whd_', now, randomUUID().slice(0, 8)),
    labels: [WEBHOOK_DELIVERY_LABEL],
    props: {
      webhookId,
      eventId: event.id,
      eventType: event.type,
      status: 'pending',
      attempts: [],
      nextAttemptAt: now.toISOString(),
      createdAt: now.toISOString(),
      redeliveryOf: redeliveryOf ?? null,
      event,
      claimedBy: null,
      claimUntil: null,
    },
    searchText: '',
  };
  await graph.createNode(node);
  return toDelivery(node);
}

/** The delivery `id` of subscription `webhookId`; 404 `not_found` when there is none. */
export async function getDelivery(
  reader: GraphReader,
  webhookId: string,
  id: string,
): Promise<WebhookDelivery> {
  const node = await reader.getNode(id);
  if (!node?.labels.includes(WEBHOOK_DELIVERY_LABEL) || node.props.webhookId !== webhookId) {
    throw TrellisError.of('not_found', { resource: `Delivery \`${id}\` of webhook \`${webhookId}\`` });
  }
  return toDelivery(node);
}

/** A subscription's deliveries, newest first. */
export async function listDeliveries(
  reader: GraphReader,
  {
    webhookId,
    status,
    limit,
    offset = 0,
  }: { webhookId: string; status?: WebhookDelivery['status']; limit: number; offset?: number },
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const page = await reader.findNodes({
    label: WEBHOOK_DELIVERY_LABEL,
    where: [
      { prop: 'webhookId', op: 'eq', value: webhookId },
      ...(status ? [{ prop: 'status', op: 'eq' as const, value: status }] : []),
    ],
    orderBy: [{ prop: 'createdAt', direction: 'desc' }],
    limit,
    offset,
  });
  return { items: page.nodes.map(toDelivery), total: page.total };
}

/** The pending deliveries of the site due at `now` and not claimed, soonest first. */
export async function dueDeliveries(reader: GraphReader, { now, limit }: { now: Date; limit: number }) {
  const page = await reader.findNodes({
    label: WEBHOOK_DELIVERY_LABEL,
    where: [
      { prop: 'status', op: 'eq', value: 'pending' },
      { prop: 'nextAttemptAt', op: 'lte', value: now.toISOString() },
    ],
    orderBy: [{ prop: 'nextAttemptAt' }],
    limit,
  });
  return page.nodes.filter((node) => !isClaimed(node, now)).map(toDelivery);
}

/** When the soonest pending delivery of the site is due (ms since the epoch), or null. */
export async function soonestPending(reader: GraphReader): Promise<number | null> {
  const page = await reader.findNodes({
    label: WEBHOOK_DELIVERY_LABEL,
    where: [{ prop: 'status', op: 'eq', value: 'pending' }],
    orderBy: [{ prop: 'nextAttemptAt' }],
    limit: 1,
  });
  const at = page.nodes[0]?.props.nextAttemptAt;
  return typeof at === 'string' ? Date.parse(at) : null;
}

/**
 * Claims a due pending delivery for `by` for `leaseMs` (compare-and-set, as deployments are
 * claimed): null when it is no longer pending, not due, or someone else's claim holds. So
 * several servers on the same data send each attempt once.
 */
export async function claimDelivery({
  graph,
  id,
  by,
  now,
  leaseMs,
}: {
  graph: Graph;
  id: string;
  by: string;
  now: Date;
  leaseMs: number;
}): Promise<WebhookDelivery | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(WEBHOOK_DELIVERY_LABEL) || node.props.status !== 'pending') return null;
    if (isClaimed(node, now) && node.props.claimedBy !== by) return null;
    const due = node.props.nextAttemptAt;
    if (typeof due === 'string' && Date.parse(due) > now.getTime()) return null;
    const claimUntil = new Date(now.getTime() + leaseMs).toISOString();
    await tx.updateNode(id, { props: { ...node.props, claimedBy: by, claimUntil } });
    return toDelivery(node);
  });
}

/**
 * Records an attempt made under `by`'s claim and gives the claim back: `succeeded` after a
 * success, `failed` when `nextAttemptAt` is null (no attempt left), else still `pending`, due
 * again at `nextAttemptAt`. Null when the claim was lost meanwhile.
 */
export async function recordAttempt({
  graph,
  id,
  by,
  attempt,
  nextAttemptAt,
}: {
  graph: Graph;
  id: string;
  by: string;
  attempt: WebhookAttempt;
  nextAttemptAt: Date | null;
}): Promise<WebhookDelivery | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node || node.props.claimedBy !== by || node.props.status !== 'pending') return null;
    const attempts = [...(Array.isArray(node.props.attempts) ? node.props.attempts : []), attempt].slice(
      -KEPT_ATTEMPTS,
    );
    const status = attempt.ok ? 'succeeded' : nextAttemptAt === null ? 'failed' : 'pending';
    const props = {
      ...node.props,
      attempts,
      status,
      nextAttemptAt: status === 'pending' && nextAttemptAt ? nextAttemptAt.toISOString() : null,
      claimedBy: null,
      claimUntil: null,
    };
    await tx.updateNode(id, { props });
    return toDelivery({ ...node, props });
  });
}

/** Gives up the pending deliveries of a subscription (it was disabled): they end `failed`. */
export async function failPending({
  graph,
  webhookId,
  reason,
  now,
}: {
  graph: Graph;
  webhookId: string;
  reason: string;
  now: Date;
}): Promise<number> {
  return graph.transaction(async (tx) => {
    const page = await tx.findNodes({
      label: WEBHOOK_DELIVERY_LABEL,
      where: [
        { prop: 'webhookId', op: 'eq', value: webhookId },
        { prop: 'status', op: 'eq', value: 'pending' },
      ],
      limit: 1000,
    });
    for (const node of page.nodes) {
      const attempts = [
        ...(Array.isArray(node.props.attempts) ? node.props.attempts : []),
        {
          at: now.toISOString(),
          status: null,
          durationMs: 0,
          ok: false,
          error: reason,
          responseExcerpt: null,
        } satisfies WebhookAttempt,
      ].slice(-KEPT_ATTEMPTS);
      await tx.updateNode(node.id, {
        props: {
          ...node.props,
          attempts,
          status: 'failed',
          nextAttemptAt: null,
          claimedBy: null,
          claimUntil: null,
        },
      });
    }
    return page.nodes.length;
  });
}

/** Deletes finished (succeeded or failed) deliveries made before `before`, at most `limit`; returns how many. */
export async function pruneDeliveries(graph: Graph, { before, limit }: { before: Date; limit: number }) {
  const page = await graph.findNodes({
    label: WEBHOOK_DELIVERY_LABEL,
    where: [
      { prop: 'status', op: 'in', value: ['succeeded', 'failed'] },
      { prop: 'createdAt', op: 'lt', value: before.toISOString() },
    ],
    limit,
  });
  if (page.nodes.length === 0) return 0;
  await graph.transaction(async (tx) => {
    for (const node of page.nodes) await tx.deleteNode(node.id);
  });
  return page.nodes.length;
}
