import {
  CreateWebhookBody,
  NoContent,
  PageQuery,
  TrellisError,
  UpdateWebhookBody,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookDeliveryQuery,
  WebhookList,
  WebhookParams,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { newEventId } from '../event-bus';
import { getDelivery, listDeliveries } from '../webhook-deliveries';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  toWebhookView,
  updateWebhook,
} from '../webhooks';

const errors = errorResponses(400, 401, 403, 404, 409);
const tags = ['webhooks'];
/** Webhooks are managed by the site's admins: the URLs and deliveries are theirs to see. */
const config = { siteScope: 'site', permission: 'site:update' } as const;

/**
 * `/api/webhooks`: the site's webhook subscriptions, their deliveries with every attempt,
 * redelivery and test events (docs/events.md).
 */
export const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const now = () => app.trellis.clock.now();

  app.get(
    '/api/webhooks',
    {
      schema: {
        tags,
        summary: 'List the site’s webhook subscriptions (never their secrets)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: WebhookList, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const page = pageOf((await listWebhooks(siteOf(request).graph)).map(toWebhookView), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.post(
    '/api/webhooks',
    {
      schema: {
        tags,
        summary: 'Subscribe a URL to the site’s events',
        description:
          '`events` lists event types (docs/events.md) or `["*"]` (the default). The `secret` signs every delivery (`Trellis-Signature`); one is generated when not given. The answer is the only one that shows it.',
        body: CreateWebhookBody,
        response: { 201: WebhookCreated, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const created = await createWebhook({
        graph: siteOf(request).graph,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'One webhook subscription',
        params: WebhookParams,
        response: { 200: Webhook, ...errors },
      },
      config,
    },
    async (request) => toWebhookView(await getWebhook(siteOf(request).graph, request.params.id)),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Change a webhook subscription',
        description:
          '`enabled: true` on a disabled subscription enables it again and resets its failure count.',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errors },
      },
      config,
    },
    async (request) =>
      toWebhookView(
        await updateWebhook({
          graph: siteOf(request).graph,
          id: request.params.id,
          patch: request.body,
          actor: actorOf(request.principal!),
          now: now(),
        }),
      ),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook subscription and its deliveries',
        params: WebhookParams,
        response: { 204: NoContent, ...errors },
      },
      config,
    },
    async (request, reply) => {
      await deleteWebhook({
        graph: siteOf(request).graph,
        id: request.params.id,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'A subscription’s deliveries, newest first, with their attempts',
        description:
          '`status` keeps `pending`, `succeeded` or `failed` ones; `limit` (default 50) and `offset` page them, `X-Total-Count` counts them.',
        params: WebhookParams,
        querystring: WebhookDeliveryQuery,
        response: { 200: WebhookDeliveryList, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const { graph } = siteOf(request);
      await getWebhook(graph, request.params.id);
      const page = await listDeliveries(graph, {
        webhookId: request.params.id,
        status: request.query.status,
        limit: request.query.limit ?? 50,
        offset: request.query.offset,
      });
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries/:deliveryId',
    {
      schema: {
        tags,
        summary: 'One delivery with its attempts',
        params: WebhookDeliveryParams,
        response: { 200: WebhookDelivery, ...errors },
      },
      config,
    },
    async (request) => getDelivery(siteOf(request).graph, request.params.id, request.params.deliveryId),
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        summary: 'Send a delivery’s event again, as a new delivery',
        description:
          '202 with the new delivery (the same event id, so receivers can tell it is a repeat; `redeliveryOf` names the old one). 409 `webhook_delivery_pending` while the delivery is still being tried; 409 `webhook_disabled` when the subscription is disabled.',
        params: WebhookDeliveryParams,
        response: { 202: WebhookDelivery, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const { graph } = siteOf(request);
      const hook = await getWebhook(graph, request.params.id);
      const old = await getDelivery(graph, hook.id, request.params.deliveryId);
      if (old.status === 'pending') throw TrellisError.of('webhook_delivery_pending', { id: old.id });
      if (!hook.enabled) throw TrellisError.of('webhook_disabled', { id: hook.id });
      const delivery = await app.events.webhooks.enqueueFor({
        graph,
        webhookId: hook.id,
        event: old.event,
        redeliveryOf: old.id,
      });
      return reply.status(202).send(delivery);
    },
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a `webhook.test` event to this subscription',
        description:
          '202 with the queued delivery (sent at once, retried like any other; whatever its filter, the subscription receives it). 409 `webhook_disabled` when the subscription is disabled.',
        params: WebhookParams,
        response: { 202: WebhookDelivery, ...errors },
      },
      config,
    },
    async (request, reply) => {
      const site = siteOf(request);
      const hook = await getWebhook(site.graph, request.params.id);
      if (!hook.enabled) throw TrellisError.of('webhook_disabled', { id: hook.id });
      const at = now();
      const delivery = await app.events.webhooks.enqueueFor({
        graph: site.graph,
        webhookId: hook.id,
        event: {
          id: newEventId(at),
          type: 'webhook.test',
          siteId: site.id,
          occurredAt: at.toISOString(),
          data: { webhookId: hook.id, requestedBy: actorOf(request.principal!) },
        },
      });
      return reply.status(202).send(delivery);
    },
  );
};
