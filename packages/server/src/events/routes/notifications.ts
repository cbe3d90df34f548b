import {
  MarkedRead,
  Notification,
  NotificationList,
  NotificationParams,
  NotificationQuery,
  SiteId,
  UnreadCount,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../http/error-responses';
import { withTotal } from '../../http/list-page';
import { listNotifications, markAllRead, markRead, unreadCount } from '../notifications';

const errors = errorResponses(400, 401, 403, 404);
const tags = ['notifications'];
/** The caller's own inbox: no site header, no permission beyond being signed in. */
const config = { siteScope: 'none' } as const;

/**
 * `/api/notifications`: the caller's inbox, across their sites, fed by the server's events
 * (docs/events.md "Notifications" says who receives what).
 */
export const notificationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { platform } = app.trellis;

  app.get(
    '/api/notifications',
    {
      schema: {
        tags,
        summary: 'The caller’s notifications, newest first',
        description:
          '`unread=true` keeps unread ones; `siteId` one site’s. `limit` (default 50) and `offset` page them; `X-Total-Count` counts them.',
        querystring: NotificationQuery,
        response: { 200: NotificationList, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const page = await listNotifications(platform, {
        userId: request.principal!.userId,
        unread: request.query.unread,
        siteId: request.query.siteId,
        limit: request.query.limit ?? 50,
        offset: request.query.offset,
      });
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.get(
    '/api/notifications/unread-count',
    {
      schema: {
        tags,
        summary: 'How many of the caller’s notifications are unread',
        response: { 200: UnreadCount, ...errors },
      },
      config,
    },
    async (request) => ({ unread: await unreadCount(platform, request.principal!.userId) }),
  );

  app.post(
    '/api/notifications/:id/read',
    {
      schema: {
        tags,
        summary: 'Mark one notification read',
        description: '404 when it is not the caller’s.',
        params: NotificationParams,
        response: { 200: Notification, ...errors },
      },
      config,
    },
    async (request) =>
      markRead({
        platform,
        userId: request.principal!.userId,
        id: request.params.id,
        now: app.trellis.clock.now(),
      }),
  );

  app.post(
    '/api/notifications/read-all',
    {
      schema: {
        tags,
        summary: 'Mark all the caller’s notifications read (one site’s with `siteId`)',
        querystring: z.object({ siteId: SiteId.optional() }),
        response: { 200: MarkedRead, ...errors },
      },
      config,
    },
    async (request) => ({
      ok: true as const,
      marked: await markAllRead({
        platform,
        userId: request.principal!.userId,
        siteId: request.query.siteId,
        now: app.trellis.clock.now(),
      }),
    }),
  );
};
