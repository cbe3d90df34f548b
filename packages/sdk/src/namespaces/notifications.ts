import { MarkedRead, Notification, NotificationList, UnreadCount } from '@trelliscms/core';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';

/** Which notifications to list: unread only, of one site, paged. */
export interface NotificationListQuery {
  unread?: boolean;
  siteId?: string;
  limit?: number;
  offset?: number;
}

/** The caller's own inbox, across their sites (no site header). See docs/events.md. */
export function createNotificationsApi(transport: Transport) {
  return {
    /** GET /api/notifications: newest first. */
    list: (query: NotificationListQuery = {}, options: CallOptions = {}): Promise<Notification[]> =>
      transport.request({
        method: 'get',
        path: 'notifications',
        schema: NotificationList,
        query: { ...query },
        ...options,
      }),
    /** The same, with `X-Total-Count`. */
    listPage: (
      query: NotificationListQuery = {},
      options: CallOptions = {},
    ): Promise<ListPage<Notification>> =>
      transport.requestPage({
        method: 'get',
        path: 'notifications',
        schema: NotificationList,
        query: { ...query },
        ...options,
      }),
    /** GET /api/notifications/unread-count */
    unreadCount: async (options: CallOptions = {}): Promise<number> =>
      (
        await transport.request({
          method: 'get',
          path: 'notifications/unread-count',
          schema: UnreadCount,
          ...options,
        })
      ).unread,
    /** POST /api/notifications/{id}/read */
    markRead: (id: string, options: CallOptions = {}): Promise<Notification> =>
      transport.request({
        method: 'post',
        path: path('notifications', id, 'read'),
        schema: Notification,
        ...options,
      }),
    /** POST /api/notifications/read-all (one site's with `siteId`): how many were marked. */
    markAllRead: async (query: { siteId?: string } = {}, options: CallOptions = {}): Promise<number> =>
      (
        await transport.request({
          method: 'post',
          path: 'notifications/read-all',
          schema: MarkedRead,
          query: { ...query },
          ...options,
        })
      ).marked,
  };
}
export type NotificationsApi = ReturnType<typeof createNotificationsApi>;
