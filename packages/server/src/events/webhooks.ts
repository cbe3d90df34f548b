import { randomBytes, randomUUID } from 'node:crypto';
import {
  type CreateWebhookBody,
  type EventType,
  sortableId,
  TrellisError,
  type UpdateWebhookBody,
  type Webhook,
  type WebhookCreated,
} from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import { WEBHOOK_DELIVERY_LABEL } from './webhook-deliveries';

/** A site's webhook subscriptions are nodes of the site graph with this label. */
export const WEBHOOK_LABEL = 'WebhookSubscription';

/** A subscription as stored: the view plus its secret. */
export interface WebhookRecord extends Webhook {
  secret: string;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function toWebhookRecord(node: GraphNode): WebhookRecord {
  const p = node.props;
  return {
    id: node.id,
    url: String(p.url),
    events: Array.isArray(p.events) ? (p.events as Webhook['events']) : ['*'],
    description: str(p.description),
    enabled: p.enabled === true,
    consecutiveFailures: typeof p.consecutiveFailures === 'number' ? p.consecutiveFailures : 0,
    disabledReason: str(p.disabledReason),
    disabledAt: str(p.disabledAt),
    secretPrefix: String(p.secret ?? '').slice(0, 10),
    createdAt: String(p.createdAt),
    createdBy: str(p.createdBy),
    updatedAt: String(p.updatedAt ?? p.createdAt),
    secret: String(p.secret ?? ''),
  };
}

/** The API view: never the secret. */
export function toWebhookView(record: WebhookRecord): Webhook {
  const { secret: _secret, ...view } = record;
  return view;
}

function recordProps(record: WebhookRecord): Record<string, unknown> {
  const { id: _id, secretPrefix: _prefix, ...props } = record;
  return props;
}

/** Whether a subscription listens to `type`. */
export function listensTo(webhook: Pick<Webhook, 'events'>, type: EventType): boolean {
  return webhook.events.includes('*') || webhook.events.includes(type);
}

/** A new secret: `whsec_` and 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export async function listWebhooks(reader: GraphReader): Promise<WebhookRecord[]> {
  const page = await reader.findNodes({
    label: WEBHOOK_LABEL,
    orderBy: [{ prop: 'createdAt' }],
    limit: 1000,
  });
  return page.nodes.map(toWebhookRecord);
}

/** The subscription `id`; 404 `not_found` when there is none. */
export async function getWebhook(reader: GraphReader, id: string): Promise<WebhookRecord> {
  const node = await reader.getNode(id);
  if (!node?.labels.includes(WEBHOOK_LABEL)) {
    throw TrellisError.of('not_found', { resource: `Webhook \`${id}\`` });
  }
  return toWebhookRecord(node);
}

export async function createWebhook({
  graph,
  body,
  actor,
  now,
}: {
  graph: Graph;
  body: CreateWebhookBody;
  actor: string;
  now: Date;
}): Promise<WebhookCreated> {
  const at = now.toISOString();
  const record: WebhookRecord = {
    id: sortableId('wh_', now, randomUUID().slice(0, 8)),
    url: body.url,
    events: body.events,
    description: body.description ?? null,
    enabled: body.enabled,
    consecutiveFailures: 0,
    disabledReason: null,
    disabledAt: null,
    secretPrefix: '',
    createdAt: at,
    createdBy: actor,
    updatedAt: at,
    secret: body.secret ?? newWebhookSecret(),
  };
  await graph.transaction(async (tx) => {
    await tx.createNode({
      id: record.id,
      labels: [WEBHOOK_LABEL],
      props: recordProps(record),
      searchText: '',
    });
    await tx.appendAudit({
      actor,
      action: 'webhook.create',
      target: record.id,
      data: { url: record.url, events: record.events },
    });
  });
  const created = toWebhookRecord({ id: record.id, labels: [WEBHOOK_LABEL], props: recordProps(record) });
  return { ...toWebhookView(created), secret: created.secret };
}

export async function updateWebhook({
  graph,
  id,
  patch,
  actor,
  now,
}: {
  graph: Graph;
  id: string;
  patch: UpdateWebhookBody;
  actor: string;
  now: Date;
}): Promise<WebhookRecord> {
  return graph.transaction(async (tx) => {
    const current = await getWebhook(tx, id);
    const next: WebhookRecord = {
      ...current,
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      updatedAt: now.toISOString(),
    };
    // Enabling again starts afresh.
    if (patch.enabled === true && !current.enabled) {
      next.consecutiveFailures = 0;
      next.disabledReason = null;
      next.disabledAt = null;
    }
    await tx.updateNode(id, { props: recordProps(next) });
    await tx.appendAudit({ actor, action: 'webhook.update', target: id, data: { ...patch } });
    return next;
  });
}

/** Deletes a subscription and its deliveries. */
export async function deleteWebhook({ graph, id, actor }: { graph: Graph; id: string; actor: string }) {
  await graph.transaction(async (tx) => {
    await getWebhook(tx, id);
    for (;;) {
      const page = await tx.findNodes({
        label: WEBHOOK_DELIVERY_LABEL,
        where: [{ prop: 'webhookId', op: 'eq', value: id }],
        limit: 500,
      });
      for (const node of page.nodes) await tx.deleteNode(node.id);
      if (page.nodes.length < 500) break;
    }
    await tx.deleteNode(id);
    await tx.appendAudit({ actor, action: 'webhook.delete', target: id });
  });
}

/**
 * Counts one finished attempt on the subscription: a success resets the failures in a row; a
 * failure adds one, and the `disableAfter`-th in a row disables it. Returns the record when this
 * call disabled it, else null.
 */
export async function countAttempt({
  graph,
  id,
  ok,
  disableAfter,
  now,
}: {
  graph: Graph;
  id: string;
  ok: boolean;
  disableAfter: number;
  now: Date;
}): Promise<WebhookRecord | null> {
  return graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(WEBHOOK_LABEL)) return null;
    const current = toWebhookRecord(node);
    const failures = ok ? 0 : current.consecutiveFailures + 1;
    const disables = !ok && current.enabled && failures >= disableAfter;
    if (failures === current.consecutiveFailures && !disables) return null;
    const next: WebhookRecord = {
      ...current,
      consecutiveFailures: failures,
      ...(disables
        ? {
            enabled: false,
            disabledAt: now.toISOString(),
            disabledReason: `disabled by the server after ${failures} failed delivery attempts in a row`,
          }
        : {}),
    };
    await tx.updateNode(id, { props: recordProps(next) });
    if (disables) {
      await tx.appendAudit({
        actor: 'system',
        action: 'webhook.disable',
        target: id,
        data: { consecutiveFailures: failures },
      });
    }
    return disables ? next : null;
  });
}
