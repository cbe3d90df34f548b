import { randomUUID } from 'node:crypto';
import { type Notification, sortableId, TrellisError, type TrellisEvent } from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader, PropFilter } from '../engines/port';

/** Notifications are nodes of the platform graph (an inbox spans the user's sites) with this label. */
export const NOTIFICATION_LABEL = 'Notification';

function toNotification(node: GraphNode): Notification {
  const p = node.props;
  return {
    id: node.id,
    siteId: String(p.siteId),
    type: p.type as Notification['type'],
    eventId: String(p.eventId),
    title: String(p.title),
    data: (p.data ?? {}) as Record<string, unknown>,
    createdAt: String(p.createdAt),
    readAt: typeof p.readAt === 'string' ? p.readAt : null,
  };
}

/** Puts one notification made from `event` in the inbox of each of `userIds`. */
export async function notifyUsers({
  platform,
  userIds,
  event,
  title,
  now,
}: {
  platform: Graph;
  userIds: readonly string[];
  event: TrellisEvent;
  title: string;
  now: Date;
}): Promise<number> {
  if (userIds.length === 0) return 0;
  await platform.createNodes(
    userIds.map((userId) => ({
      id: sortableId('ntf_', now, randomUUID().slice(0, 8)),
      labels: [NOTIFICATION_LABEL],
      props: {
        userId,
        siteId: event.siteId,
        type: event.type,
        eventId: event.id,
        title,
        data: event.data,
        createdAt: now.toISOString(),
        readAt: null,
      },
      searchText: '',
    })),
  );
  return userIds.length;
}

function filters({
  userId,
  unread,
  siteId,
}: {
  userId: string;
  unread?: boolean;
  siteId?: string;
}): PropFilter[] {
  return [
    { prop: 'userId', op: 'eq', value: userId },
    ...(unread ? [{ prop: 'readAt', op: 'exists' as const, value: false }] : []),
    ...(siteId ? [{ prop: 'siteId', op: 'eq' as const, value: siteId }] : []),
  ];
}

/** The user's notifications, newest first. */
export async function listNotifications(
  reader: GraphReader,
  query: { userId: string; unread?: boolean; siteId?: string; limit: number; offset?: number },
): Promise<{ items: Notification[]; total: number }> {
  const page = await reader.findNodes({
    label: NOTIFICATION_LABEL,
    where: filters(query),
    orderBy: [
      { prop: 'createdAt', direction: 'desc' },
      { prop: 'eventId', direction: 'desc' },
    ],
    limit: query.limit,
    offset: query.offset ?? 0,
  });
  return { items: page.nodes.map(toNotification), total: page.total };
}

/** How many of the user's notifications are unread. */
export async function unreadCount(reader: GraphReader, userId: string): Promise<number> {
  const page = await reader.findNodes({
    label: NOTIFICATION_LABEL,
    where: filters({ userId, unread: true }),
    limit: 1,
  });
  return page.total;
}

/** Marks one of the user's notifications read (again: unchanged); 404 when it is not theirs. */
export async function markRead({
  platform,
  userId,
  id,
  now,
}: {
  platform: Graph;
  userId: string;
  id: string;
  now: Date;
}): Promise<Notification> {
  return platform.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(NOTIFICATION_LABEL) || node.props.userId !== userId) {
      throw TrellisError.of('not_found', { resource: `Notification \`${id}\`` });
    }
    if (typeof node.props.readAt === 'string') return toNotification(node);
    const props = { ...node.props, readAt: now.toISOString() };
    await tx.updateNode(id, { props });
    return toNotification({ ...node, props });
  });
}

/** Marks every unread notification of the user read (of one site with `siteId`); returns how many. */
export async function markAllRead({
  platform,
  userId,
  siteId,
  now,
}: {
  platform: Graph;
  userId: string;
  siteId?: string;
  now: Date;
}): Promise<number> {
  let marked = 0;
  for (;;) {
    const batch = await platform.transaction(async (tx) => {
      const page = await tx.findNodes({
        label: NOTIFICATION_LABEL,
        where: filters({ userId, unread: true, siteId }),
        limit: 500,
      });
      for (const node of page.nodes) {
        await tx.updateNode(node.id, { props: { ...node.props, readAt: now.toISOString() } });
      }
      return page.nodes.length;
    });
    marked += batch;
    if (batch < 500) return marked;
  }
}
