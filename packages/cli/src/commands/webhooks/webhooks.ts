import type { CreateWebhookBody, WebhookDelivery } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms webhooks list`: never the secrets. */
export async function webhooksList({ site, out }: Deps): Promise<number> {
  const hooks = await site.webhooks.list();
  out.result(hooks, () =>
    table(
      hooks.map((hook) => ({
        ...hook,
        events: hook.events.join(','),
        state: hook.enabled ? 'enabled' : `disabled${hook.disabledReason ? ` (${hook.disabledReason})` : ''}`,
      })),
      ['id', 'url', 'events', 'state', 'consecutiveFailures'],
    ),
  );
  return ExitCode.ok;
}

/** `cms webhooks create <url>`: prints the secret once. */
export async function webhooksCreate({
  site,
  out,
  body,
}: Deps & { body: Partial<CreateWebhookBody> & { url: string } }): Promise<number> {
  const hook = await site.webhooks.create(body);
  out.result(hook, () => [
    `Created webhook ${hook.id} → ${hook.url} (events: ${hook.events.join(', ')}).`,
    `Secret (shown once, store it now; it verifies Trellis-Signature): ${hook.secret}`,
  ]);
  return ExitCode.ok;
}

/** `cms webhooks rm <id>`: the subscription and its deliveries. */
export async function webhooksRemove({ site, out, id }: Deps & { id: string }): Promise<number> {
  await site.webhooks.delete(id);
  out.result({ ok: true, id }, () => `Deleted webhook ${id}.`);
  return ExitCode.ok;
}

/** `cms webhooks enable|disable <id>` */
export async function webhooksSetEnabled({
  site,
  out,
  id,
  enabled,
}: Deps & { id: string; enabled: boolean }): Promise<number> {
  const hook = await site.webhooks.update(id, { enabled });
  out.result(hook, () => `Webhook ${id} is ${hook.enabled ? 'enabled' : 'disabled'}.`);
  return ExitCode.ok;
}

function lastAttempt(delivery: WebhookDelivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return '';
  return last.ok ? `${last.status}` : `${last.status ?? '-'} ${last.error ?? ''}`.trim();
}

/** `cms webhooks deliveries <id>`: newest first. */
export async function webhooksDeliveries({
  site,
  out,
  id,
  status,
  limit,
}: Deps & { id: string; status?: WebhookDelivery['status']; limit?: number }): Promise<number> {
  const page = await site.webhooks.deliveriesPage(id, { status, limit });
  out.result(page.items, () => [
    ...table(
      page.items.map((delivery) => ({
        ...delivery,
        attempts: delivery.attempts.length,
        last: lastAttempt(delivery),
      })),
      ['id', 'eventType', 'status', 'attempts', 'last', 'nextAttemptAt', 'createdAt'],
    ),
    ...(page.total > page.items.length ? [`${page.items.length} of ${page.total}; use --limit`] : []),
  ]);
  return ExitCode.ok;
}

/** `cms webhooks redeliver <id> <deliveryId>` */
export async function webhooksRedeliver({
  site,
  out,
  id,
  deliveryId,
}: Deps & { id: string; deliveryId: string }): Promise<number> {
  const delivery = await site.webhooks.redeliver(id, deliveryId);
  out.result(delivery, () => `Queued ${delivery.id}: ${delivery.eventType} ${delivery.eventId} again.`);
  return ExitCode.ok;
}

/** `cms webhooks test <id>` */
export async function webhooksTest({ site, out, id }: Deps & { id: string }): Promise<number> {
  const delivery = await site.webhooks.test(id);
  out.result(delivery, () => [
    `Queued test event ${delivery.eventId} as ${delivery.id}.`,
    `Follow it: cms webhooks deliveries ${id}`,
  ]);
  return ExitCode.ok;
}
