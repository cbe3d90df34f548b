import {
  type CreateWebhookBody,
  type UpdateWebhookBody,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';

/** Which deliveries to list: by status, paged. */
export interface DeliveryListQuery {
  status?: 'pending' | 'succeeded' | 'failed';
  limit?: number;
  offset?: number;
}

/** The site's webhook subscriptions and their deliveries (site-scoped; admins). See docs/events.md. */
export function createWebhooksApi(transport: Transport) {
  return {
    /** GET /api/webhooks: never the secrets. */
    list: (options: CallOptions = {}): Promise<Webhook[]> =>
      transport.request({ method: 'get', path: 'webhooks', schema: WebhookList, ...options }),
    /** GET /api/webhooks/{id} */
    get: (id: string, options: CallOptions = {}): Promise<Webhook> =>
      transport.request({ method: 'get', path: path('webhooks', id), schema: Webhook, ...options }),
    /** POST /api/webhooks: the answer's `secret` is shown this once. */
    create: (body: z.input<typeof CreateWebhookBody>, options: CallOptions = {}): Promise<WebhookCreated> =>
      transport.request({ method: 'post', path: 'webhooks', schema: WebhookCreated, json: body, ...options }),
    /** PATCH /api/webhooks/{id}: `enabled: true` re-enables a disabled one. */
    update: (
      id: string,
      body: z.input<typeof UpdateWebhookBody>,
      options: CallOptions = {},
    ): Promise<Webhook> =>
      transport.request({
        method: 'patch',
        path: path('webhooks', id),
        schema: Webhook,
        json: body,
        ...options,
      }),
    /** DELETE /api/webhooks/{id}: the subscription and its deliveries. */
    delete: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('webhooks', id), ...options });
    },
    /** GET /api/webhooks/{id}/deliveries: newest first, with their attempts. */
    deliveries: (
      id: string,
      query: DeliveryListQuery = {},
      options: CallOptions = {},
    ): Promise<WebhookDelivery[]> =>
      transport.request({
        method: 'get',
        path: path('webhooks', id, 'deliveries'),
        schema: WebhookDeliveryList,
        query: { ...query },
        ...options,
      }),
    /** The same, with `X-Total-Count`. */
    deliveriesPage: (
      id: string,
      query: DeliveryListQuery = {},
      options: CallOptions = {},
    ): Promise<ListPage<WebhookDelivery>> =>
      transport.requestPage({
        method: 'get',
        path: path('webhooks', id, 'deliveries'),
        schema: WebhookDeliveryList,
        query: { ...query },
        ...options,
      }),
    /** GET /api/webhooks/{id}/deliveries/{deliveryId} */
    delivery: (id: string, deliveryId: string, options: CallOptions = {}): Promise<WebhookDelivery> =>
      transport.request({
        method: 'get',
        path: path('webhooks', id, 'deliveries', deliveryId),
        schema: WebhookDelivery,
        ...options,
      }),
    /** POST …/deliveries/{deliveryId}/redeliver: a new delivery of the same event. */
    redeliver: (id: string, deliveryId: string, options: CallOptions = {}): Promise<WebhookDelivery> =>
      transport.request({
        method: 'post',
        path: path('webhooks', id, 'deliveries', deliveryId, 'redeliver'),
        schema: WebhookDelivery,
        ...options,
      }),
    /** POST /api/webhooks/{id}/test: queues a `webhook.test` event for this subscription. */
    test: (id: string, options: CallOptions = {}): Promise<WebhookDelivery> =>
      transport.request({
        method: 'post',
        path: path('webhooks', id, 'test'),
        schema: WebhookDelivery,
        ...options,
      }),
  };
}
export type WebhooksApi = ReturnType<typeof createWebhooksApi>;
