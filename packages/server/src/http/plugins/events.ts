import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { EventBus } from '../../events/event-bus';
import { notifier } from '../../events/notifier';
import { WebhookDispatcher } from '../../events/webhook-dispatcher';
import { getSite, toSiteView } from '../../platform/sites';
import { reviewStalenessWatcher } from '../../releases/review-staleness';

/** How often the webhook queue is polled (a tick is also timed for the soonest retry, and run on each new delivery). */
export const WEBHOOK_POLL_MS = 5000;

/** The event stream and what listens to it. */
export interface EventsContext {
  /** The server's one event stream (events/event-bus.ts): modules emit on it. */
  bus: EventBus;
  /** Queues and sends webhook deliveries. */
  webhooks: WebhookDispatcher;
}

declare module 'fastify' {
  interface FastifyInstance {
    events: EventsContext;
  }
}

/**
 * Owns the event bus and its listeners: webhook queueing (every server queues) and delivery
 * (started when the app is ready unless CMS_WEBHOOKS is false), notifications, and the
 * watch for reviews gone stale. Closing the app stops delivery and waits for the listeners.
 */
export const eventsPlugin = fp(
  async (app: FastifyInstance) => {
    const { config, clock, platform, engine } = app.trellis;
    const log = app.log.child({ component: 'events' });
    const bus = new EventBus({ clock, log });
    const webhooks = new WebhookDispatcher({
      engine,
      platform,
      bus,
      clock,
      outbound: app.trellis.outbound,
      log: app.log.child({ component: 'webhooks' }),
      retryBaseMs: config.CMS_WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: config.CMS_WEBHOOK_RETRY_MAX_MS,
      maxAttempts: config.CMS_WEBHOOK_MAX_ATTEMPTS,
      disableAfter: config.CMS_WEBHOOK_DISABLE_AFTER,
      intervalMs: WEBHOOK_POLL_MS,
      leaseMs: Math.max(60_000, config.CMS_OUTBOUND_TIMEOUT_MS * 2),
      retentionDays: config.CMS_WEBHOOK_RETENTION_DAYS,
      userAgent: `Trellis-Webhooks/${app.trellis.version}`,
    });
    webhooks.listen();
    bus.on(notifier({ platform, clock }));
    bus.on(
      reviewStalenessWatcher({
        events: bus,
        openGraph: async (siteId) => {
          const site = await getSite(platform, siteId);
          return site ? engine.openGraph(toSiteView(site).graphName) : null;
        },
      }),
    );
    app.decorate('events', { bus, webhooks });
    app.addHook('onReady', async () => {
      if (config.CMS_WEBHOOKS) webhooks.start();
    });
    app.addHook('preClose', async () => {
      await bus.drain();
      await webhooks.stop();
    });
    // Events emitted while the rest closes (a background deployment ending) still reach their listeners.
    app.addHook('onClose', async () => {
      await bus.drain();
    });
  },
  { name: 'trellis-events', dependencies: ['trellis-context'] },
);
