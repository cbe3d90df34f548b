import { EVENT_TYPES } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { UsageError } from '../../errors';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import {
  webhooksCreate,
  webhooksDeliveries,
  webhooksList,
  webhooksRedeliver,
  webhooksRemove,
  webhooksSetEnabled,
  webhooksTest,
} from './webhooks';

export interface WebhooksCreateFlags {
  events?: string;
  secret?: string;
  description?: string;
}

export interface WebhooksDeliveriesFlags {
  status?: 'pending' | 'succeeded' | 'failed';
  limit?: number;
}

type EventName = (typeof EVENT_TYPES)[number] | '*';

/** `--events a,b` as a list of known event names (or `*`). */
function eventList(value: string | undefined): EventName[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = new Set<string>([...EVENT_TYPES, '*']);
  const unknown = names.filter((name) => !known.has(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `unknown event ${unknown.join(', ') || '(none)'}; events are * or ${EVENT_TYPES.join(', ')}`,
    );
  }
  return names as EventName[];
}

/** `cms webhooks list|create|rm|enable|disable|deliveries|redeliver|test` */
export function defineWebhooksCommands(program: Command, { action }: CommandKit): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook subscriptions of the site and their deliveries (admins; docs/events.md)');
  subcommand(webhooks, 'list', 'List subscriptions (never their secrets)', 'cms webhooks list').action(
    action(async (context) => webhooksList({ site: await context.site(), out: context.out })),
  );
  subcommand(
    webhooks,
    'create',
    'Subscribe a URL to the site’s events; the secret is printed once',
    'cms webhooks create https://example.org/hooks/trellis --events build.failed,deployment.live',
  )
    .argument('<url>', 'where deliveries are POSTed')
    .option('--events <list>', 'comma-separated event types, or * (default)')
    .option('--secret <secret>', 'the signing secret (at least 16 characters; default: generated)')
    .option('--description <text>', 'what it is for')
    .action(
      action<WebhooksCreateFlags>(async (context, [url], options) =>
        webhooksCreate({
          site: await context.site(),
          out: context.out,
          body: {
            url: url!,
            ...(options.events ? { events: eventList(options.events) } : {}),
            ...(options.secret ? { secret: options.secret } : {}),
            ...(options.description ? { description: options.description } : {}),
          },
        }),
      ),
    );
  subcommand(webhooks, 'rm', 'Delete a subscription and its deliveries', 'cms webhooks rm wh_01J…')
    .argument('<id>', 'webhook id')
    .action(
      action(async (context, [id]) =>
        webhooksRemove({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    subcommand(
      webhooks,
      name,
      enabled ? 'Enable a subscription again (resets its failure count)' : 'Stop sending to a subscription',
      `cms webhooks ${name} wh_01J…`,
    )
      .argument('<id>', 'webhook id')
      .action(
        action(async (context, [id]) =>
          webhooksSetEnabled({ site: await context.site(), out: context.out, id: id!, enabled }),
        ),
      );
  }
  subcommand(
    webhooks,
    'deliveries',
    'A subscription’s deliveries, newest first, with their last attempt',
    'cms webhooks deliveries wh_01J… --status failed',
  )
    .argument('<id>', 'webhook id')
    .addOption(new Option('--status <status>', 'only these').choices(['pending', 'succeeded', 'failed']))
    .option('--limit <n>', 'at most this many (default 50)', toPositiveInt)
    .action(
      action<WebhooksDeliveriesFlags>(async (context, [id], options) =>
        webhooksDeliveries({
          site: await context.site(),
          out: context.out,
          id: id!,
          status: options.status,
          limit: options.limit,
        }),
      ),
    );
  subcommand(
    webhooks,
    'redeliver',
    'Send a finished delivery’s event again',
    'cms webhooks redeliver wh_01J… whd_01J…',
  )
    .argument('<id>', 'webhook id')
    .argument('<deliveryId>', 'delivery id')
    .action(
      action(async (context, [id, deliveryId]) =>
        webhooksRedeliver({ site: await context.site(), out: context.out, id: id!, deliveryId: deliveryId! }),
      ),
    );
  subcommand(webhooks, 'test', 'Send a webhook.test event to a subscription', 'cms webhooks test wh_01J…')
    .argument('<id>', 'webhook id')
    .action(
      action(async (context, [id]) =>
        webhooksTest({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
}
