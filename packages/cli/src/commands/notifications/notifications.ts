import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { CommandDeps } from '../context';

type Deps = Pick<CommandDeps, 'client' | 'out'>;

/** `cms notifications list`: the caller's inbox, newest first. */
export async function notificationsList({
  client,
  out,
  unread,
  siteId,
  limit,
}: Deps & { unread?: boolean; siteId?: string; limit?: number }): Promise<number> {
  const page = await client.notifications.listPage({ unread, siteId, limit });
  out.result(page.items, () => [
    ...table(
      page.items.map((item) => ({ ...item, read: item.readAt ? '' : '*' })),
      [['read', ''], 'id', 'siteId', 'type', 'title', 'createdAt'],
    ),
    ...(page.total > page.items.length ? [`${page.items.length} of ${page.total}; use --limit`] : []),
  ]);
  return ExitCode.ok;
}

/** `cms notifications read <id>|--all` */
export async function notificationsRead({
  client,
  out,
  id,
  all,
  siteId,
}: Deps & { id?: string; all?: boolean; siteId?: string }): Promise<number> {
  if (all) {
    const marked = await client.notifications.markAllRead({ siteId });
    out.result({ ok: true, marked }, () => `Marked ${marked} notification${marked === 1 ? '' : 's'} read.`);
    return ExitCode.ok;
  }
  const notification = await client.notifications.markRead(id!);
  out.result(notification, () => `Marked ${notification.id} read.`);
  return ExitCode.ok;
}
