import { z } from 'zod';
import { DateTime, JsonObject, PageQuery, QueryFlag, SiteId } from './common';

/**
 * Every event the server emits (docs/events.md lists each one's `data`). Webhook subscriptions
 * filter on these names (or `*`); notifications are made from some of them.
 */
export const EVENT_TYPES = [
  'item.created',
  'item.updated',
  'item.published',
  'item.unpublished',
  'item.deleted',
  'build.started',
  'build.finished',
  'build.failed',
  'release.transitioned',
  'deployment.scheduled',
  'deployment.live',
  'deployment.failed',
  'deployment.rolled_back',
  'review.stale',
  'import.finished',
  'webhook.disabled',
  'webhook.test',
] as const;
export const EventType = z.enum(EVENT_TYPES).meta({ id: 'EventType' });
export type EventType = z.infer<typeof EventType>;

/** One event, as a webhook delivery's JSON body carries it. */
export const TrellisEvent = z
  .object({
    /** `evt_<sortable id>`: the same in every delivery of the event (receivers deduplicate on it). */
    id: z.string(),
    type: EventType,
    siteId: SiteId,
    occurredAt: DateTime,
    /** The event's payload (docs/events.md). */
    data: JsonObject,
  })
  .meta({ id: 'TrellisEvent' });
export type TrellisEvent = z.infer<typeof TrellisEvent>;

/** What a subscription listens to: event names, or `["*"]` for all. */
export const WebhookEventFilter = z
  .array(z.union([EventType, z.literal('*')]))
  .min(1)
  .max(EVENT_TYPES.length + 1);

/** A webhook subscription of a site, without its secret (shown only when created). */
export const Webhook = z
  .object({
    id: z.string(),
    url: z.url(),
    events: WebhookEventFilter,
    description: z.string().nullable(),
    enabled: z.boolean(),
    /** Deliveries that failed in a row (every attempt); reset by a success. */
    consecutiveFailures: z.number().int(),
    /** Why the server disabled it (after too many failures in a row), or null. */
    disabledReason: z.string().nullable(),
    disabledAt: DateTime.nullable(),
    /** The first characters of the secret, to tell secrets apart. */
    secretPrefix: z.string(),
    createdAt: DateTime,
    createdBy: z.string().nullable(),
    updatedAt: DateTime,
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof Webhook>;

/** GET /api/webhooks */
export const WebhookList = z.array(Webhook).meta({ id: 'WebhookList' });
export type WebhookList = z.infer<typeof WebhookList>;

/** POST /api/webhooks: the secret is generated when not given (at least 16 characters). */
export const CreateWebhookBody = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2000),
    events: WebhookEventFilter.default(['*']),
    secret: z.string().min(16).max(200).optional(),
    description: z.string().max(500).optional(),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'CreateWebhookBody' });
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

/** PATCH /api/webhooks/{id}: enabling again resets the failure count. */
export const UpdateWebhookBody = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    events: WebhookEventFilter.optional(),
    description: z.string().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'UpdateWebhookBody' });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

/** The answer of POST /api/webhooks: the subscription with its secret, shown this once. */
export const WebhookCreated = Webhook.extend({ secret: z.string() }).meta({ id: 'WebhookCreated' });
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const WebhookParams = z.object({ id: z.string().min(1).max(200) });
export const WebhookDeliveryParams = z.object({
  id: z.string().min(1).max(200),
  deliveryId: z.string().min(1).max(200),
});

/** One try at sending a delivery. */
export const WebhookAttempt = z
  .object({
    at: DateTime,
    /** The receiver's HTTP status, or null when there was no answer. */
    status: z.number().int().nullable(),
    durationMs: z.number().int(),
    ok: z.boolean(),
    /** Why it failed (network error, refused destination, non-2xx), or null. */
    error: z.string().nullable(),
    /** The first 500 characters of the receiver's answer. */
    responseExcerpt: z.string().nullable(),
  })
  .meta({ id: 'WebhookAttempt' });
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/** One event on its way to one subscription, with its attempts. */
export const WebhookDelivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: EventType,
    /** `pending` (waiting for its next attempt), `succeeded`, `failed` (gave up). */
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(WebhookAttempt),
    nextAttemptAt: DateTime.nullable(),
    createdAt: DateTime,
    /** Set on a delivery made by redeliver: the one it repeats. */
    redeliveryOf: z.string().nullable(),
    event: TrellisEvent,
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = z.array(WebhookDelivery).meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryList = z.infer<typeof WebhookDeliveryList>;

export const WebhookDeliveryQuery = PageQuery.extend({
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});

/** A notification in a user's inbox. */
export const Notification = z
  .object({
    id: z.string(),
    siteId: SiteId,
    /** The event it was made from. */
    type: EventType,
    eventId: z.string(),
    title: z.string(),
    data: JsonObject,
    createdAt: DateTime,
    readAt: DateTime.nullable(),
  })
  .meta({ id: 'Notification' });
export type Notification = z.infer<typeof Notification>;

export const NotificationList = z.array(Notification).meta({ id: 'NotificationList' });
export type NotificationList = z.infer<typeof NotificationList>;

/** GET /api/notifications: newest first; `unread` keeps unread ones; `siteId` one site's. */
export const NotificationQuery = PageQuery.extend({
  unread: QueryFlag.optional(),
  siteId: SiteId.optional(),
});

export const NotificationParams = z.object({ id: z.string().min(1).max(200) });

export const UnreadCount = z.object({ unread: z.number().int() }).meta({ id: 'UnreadCount' });
export type UnreadCount = z.infer<typeof UnreadCount>;

/** POST /api/notifications/read-all: how many were marked read. */
export const MarkedRead = z
  .object({ ok: z.literal(true), marked: z.number().int() })
  .meta({ id: 'MarkedRead' });
export type MarkedRead = z.infer<typeof MarkedRead>;
