import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { notificationsList, notificationsRead } from './notifications';

export interface NotificationsListFlags {
  unread?: boolean;
  site?: string;
  limit?: number;
}

export interface NotificationsReadFlags {
  all?: boolean;
  site?: string;
}

/** `cms notifications list|read` */
export function defineNotificationsCommands(program: Command, { action }: CommandKit): void {
  const notifications = program
    .command('notifications')
    .description(
      'Your notifications across your sites (failed builds, deployments, stale reviews, disabled webhooks)',
    );
  subcommand(notifications, 'list', 'List your notifications, newest first (* marks unread)', [
    'cms notifications list --unread',
  ])
    .option('--unread', 'only unread ones')
    .option('--site <siteId>', 'only this site’s')
    .option('--limit <n>', 'at most this many (default 50)', toPositiveInt)
    .action(
      action<NotificationsListFlags>(async (context, _args, options) =>
        notificationsList({
          client: await context.client(),
          out: context.out,
          unread: options.unread,
          siteId: options.site,
          limit: options.limit,
        }),
      ),
    );
  subcommand(notifications, 'read', 'Mark a notification read, or all of them', [
    'cms notifications read ntf_01J…',
    'cms notifications read --all',
  ])
    .argument('[id]', 'notification id')
    .option('--all', 'mark every unread notification read')
    .option('--site <siteId>', 'with --all: only this site’s')
    .action(
      action<NotificationsReadFlags>(async (context, [id], options) => {
        if (!id && !options.all) throw new UsageError('name a notification id, or give --all');
        if (id && options.all) throw new UsageError('give a notification id or --all, not both');
        return notificationsRead({
          client: await context.client(),
          out: context.out,
          id,
          all: options.all,
          siteId: options.site,
        });
      }),
    );
}
