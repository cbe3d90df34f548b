import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { TrellisEvent, WebhookAttempt, WebhookDelivery } from '@trelliscms/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Graph, GraphEngine } from '../engines/port';
import { getSite, listSites, toSiteView } from '../platform/sites';
import type { Clock } from '../shared/clock';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';
import type { EventBus } from './event-bus';
import {
  claimDelivery,
  dueDeliveries,
  enqueueDelivery,
  failPending,
  pruneDeliveries,
  recordAttempt,
  soonestPending,
} from './webhook-deliveries';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature';
import { countAttempt, getWebhook, listensTo, listWebhooks, type WebhookRecord } from './webhooks';

/** How many due deliveries one tick sends per site at most (the rest wait for the next tick). */
const DUE_PER_TICK = 50;
/** How often one server prunes a site's old deliveries (ms), and how many at most each time. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 500;
/** How much of a receiver's answer an attempt keeps. */
const EXCERPT_CHARS = 500;

export interface WebhookDispatcherOptions {
  engine: GraphEngine;
  platform: Graph;
  bus: EventBus;
  clock: Clock;
  /** The server's guarded outbound fetcher: every delivery goes through it. */
  outbound: GuardedFetch;
  log: FastifyBaseLogger;
  /** The delay before the second attempt, in ms; doubled for each further one. */
  retryBaseMs: number;
  /** The longest delay between two attempts, in ms. */
  retryMaxMs: number;
  /** Attempts per delivery before it ends `failed`. */
  maxAttempts: number;
  /** Failed attempts in a row (over all its deliveries) after which a subscription is disabled. */
  disableAfter: number;
  /** How often the queue is polled, in ms (a tick is also timed for the soonest retry). */
  intervalMs: number;
  /** How long a claim on a delivery holds (longer than one request can take). */
  leaseMs: number;
  /** Days finished deliveries are kept (0: all); pruned at most once an hour per site. */
  retentionDays?: number;
  /** The `User-Agent` of deliveries. */
  userAgent: string;
}

/** The delay before attempt `n + 1` after `n` failed attempts: base × 2^(n−1), at most `max`. */
export function retryDelayMs({
  failed,
  baseMs,
  maxMs,
}: {
  failed: number;
  baseMs: number;
  maxMs: number;
}): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, failed - 1));
}

/**
 * Sends webhook deliveries. Events reach it from the bus: each one is queued, as a
 * `WebhookDelivery` node of the site graph, for every enabled subscription that listens to
 * it. Every tick reads the due deliveries of every site from the graph (nothing is kept in
 * memory, so a restarted server picks the queue up where it was) and sends each under a claim
 * taken with a compare-and-set, the way the deployment scheduler claims deployments, so two
 * servers on the same data never send the same attempt twice. A failed attempt is retried with
 * exponential backoff; after `maxAttempts` the delivery ends `failed`; after `disableAfter`
 * failures in a row the subscription is disabled (and a `webhook.disabled` event emitted).
 */
export class WebhookDispatcher {
  readonly instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private nextTimer: NodeJS.Timeout | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private stopped = false;
  /** Whether this server sends deliveries ({@link start}); without it, it only queues them. */
  private sending = false;
  private unsubscribe: (() => void) | null = null;
  /** When each site graph's old deliveries were last pruned (by this server's clock). */
  private readonly prunedAt = new Map<string, number>();

  constructor(private readonly options: WebhookDispatcherOptions) {}

  /** Queues deliveries for every event from now on (without sending: see {@link start}). */
  listen(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.options.bus.on((event) => this.enqueue(event));
  }

  /** Queues `event` for each enabled subscription of its site that listens to it, then pokes a tick. */
  async enqueue(event: TrellisEvent): Promise<WebhookDelivery[]> {
    if (event.type === 'webhook.test') return []; // sent to one subscription by its route
    const graph = await this.siteGraph(event.siteId);
    if (!graph) return [];
    const subscribed = (await listWebhooks(graph)).filter(
      (hook) => hook.enabled && listensTo(hook, event.type),
    );
    const queued: WebhookDelivery[] = [];
    for (const hook of subscribed) {
      queued.push(await enqueueDelivery({ graph, webhookId: hook.id, event, now: this.options.clock.now() }));
    }
    if (queued.length > 0) this.poke();
    return queued;
  }

  /** Queues `event` for the one subscription `webhookId` (test events, redeliveries), then pokes a tick. */
  async enqueueFor({
    graph,
    webhookId,
    event,
    redeliveryOf,
  }: {
    graph: Graph;
    webhookId: string;
    event: TrellisEvent;
    redeliveryOf?: string;
  }): Promise<WebhookDelivery> {
    const delivery = await enqueueDelivery({
      graph,
      webhookId,
      event,
      now: this.options.clock.now(),
      redeliveryOf,
    });
    this.poke();
    return delivery;
  }

  /** Starts polling every `intervalMs` (the first tick right away). */
  start(): void {
    if (this.timer) return;
    this.stopped = false;
    this.sending = true;
    this.timer = setInterval(() => this.poke(), this.options.intervalMs);
    this.timer.unref();
    this.poke();
  }

  /** Stops listening and polling, and waits for the tick in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sending = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    if (this.nextTimer) clearTimeout(this.nextTimer);
    this.timer = null;
    this.nextTimer = null;
    await this.chain.catch(() => undefined);
  }

  /** Asks for a tick soon when this server sends (one waiting tick covers any number of pokes). Never throws. */
  poke(): void {
    if (!this.sending || this.queued) return;
    this.queued = this.tick()
      .then(() => undefined)
      .catch((error: unknown) => this.options.log.error({ err: error }, 'webhook delivery tick failed'));
  }

  /**
   * Sends every delivery due now, on every site, after the tick in flight (ticks never overlap).
   * Returns the deliveries this tick made an attempt on, as they ended.
   */
  tick(): Promise<WebhookDelivery[]> {
    const run = this.chain.then(() => {
      this.queued = null;
      return this.runTick();
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async siteGraph(siteId: string): Promise<Graph | null> {
    const site = await getSite(this.options.platform, siteId);
    return site ? this.options.engine.openGraph(toSiteView(site).graphName) : null;
  }

  private async runTick(): Promise<WebhookDelivery[]> {
    const attempted: WebhookDelivery[] = [];
    let soonest = Number.POSITIVE_INFINITY;
    for (const record of await listSites(this.options.platform)) {
      if (this.stopped) break;
      try {
        const next = await this.tickSite(toSiteView(record).graphName, attempted);
        if (next !== null) soonest = Math.min(soonest, next);
      } catch (error) {
        // One site's trouble (a graph being dropped, a failing engine) does not stop the others.
        this.options.log.error({ err: error, siteId: record.id }, 'webhook deliveries of a site failed');
      }
    }
    if (Number.isFinite(soonest)) this.armFor(soonest);
    return attempted;
  }

  /** Sends the due deliveries of one site; returns when its soonest pending one is due, or null. */
  private async tickSite(graphName: string, attempted: WebhookDelivery[]): Promise<number | null> {
    const graph = await this.options.engine.openGraph(graphName);
    if (!graph) return null;
    const hooks = new Map<string, WebhookRecord | null>();
    for (const due of await dueDeliveries(graph, { now: this.options.clock.now(), limit: DUE_PER_TICK })) {
      if (this.stopped) break;
      if (!hooks.has(due.webhookId)) {
        hooks.set(due.webhookId, await getWebhook(graph, due.webhookId).catch(() => null));
      }
      const hook = hooks.get(due.webhookId) ?? null;
      const done = await this.attempt({ graph, delivery: due, hook });
      if (done) attempted.push(done);
    }
    await this.prune(graphName, graph);
    return soonestPending(graph);
  }

  /** Deletes the site's finished deliveries older than the retention, at most once an hour. */
  private async prune(graphName: string, graph: Graph): Promise<void> {
    const days = this.options.retentionDays ?? 0;
    const now = this.options.clock.now().getTime();
    if (days <= 0 || now - (this.prunedAt.get(graphName) ?? Number.NEGATIVE_INFINITY) < PRUNE_EVERY_MS)
      return;
    this.prunedAt.set(graphName, now);
    const removed = await pruneDeliveries(graph, {
      before: new Date(now - days * 86_400_000),
      limit: PRUNE_BATCH,
    });
    if (removed > 0) this.options.log.info({ graphName, removed }, 'pruned old webhook deliveries');
  }

  /** Times one tick for `at` when that is before the next poll. */
  private armFor(at: number): void {
    const delay = Math.max(0, at - this.options.clock.now().getTime());
    if (delay >= this.options.intervalMs || this.stopped) return;
    if (this.nextTimer) clearTimeout(this.nextTimer);
    this.nextTimer = setTimeout(() => {
      this.nextTimer = null;
      this.poke();
    }, delay);
    this.nextTimer.unref();
  }

  /** One attempt at a due delivery, under a claim; null when another server holds or sent it. */
  private async attempt({
    graph,
    delivery,
    hook,
  }: {
    graph: Graph;
    delivery: WebhookDelivery;
    hook: WebhookRecord | null;
  }): Promise<WebhookDelivery | null> {
    const { clock } = this.options;
    if (!hook?.enabled) {
      // A subscription deleted or disabled meanwhile: its queue is given up.
      await failPending({
        graph,
        webhookId: delivery.webhookId,
        reason: hook ? 'not sent: the webhook is disabled' : 'not sent: the webhook was deleted',
        now: clock.now(),
      });
      return null;
    }
    const claimed = await claimDelivery({
      graph,
      id: delivery.id,
      by: this.instanceId,
      now: clock.now(),
      leaseMs: this.options.leaseMs,
    });
    if (!claimed) return null;
    const attempt = await this.send(hook, claimed);
    const failed = claimed.attempts.filter((a) => !a.ok).length + (attempt.ok ? 0 : 1);
    const nextAttemptAt =
      attempt.ok || failed >= this.options.maxAttempts
        ? null
        : new Date(
            clock.now().getTime() +
              retryDelayMs({ failed, baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs }),
          );
    const recorded = await recordAttempt({
      graph,
      id: claimed.id,
      by: this.instanceId,
      attempt,
      nextAttemptAt,
    });
    const disabled = await countAttempt({
      graph,
      id: hook.id,
      ok: attempt.ok,
      disableAfter: this.options.disableAfter,
      now: clock.now(),
    });
    if (disabled) {
      hook.enabled = false;
      const reason = disabled.disabledReason ?? 'disabled after repeated failures';
      await failPending({ graph, webhookId: hook.id, reason: `not sent: ${reason}`, now: clock.now() });
      this.options.log.warn(
        { webhookId: hook.id, url: hook.url },
        'webhook disabled after repeated failures',
      );
      this.options.bus.emit({
        type: 'webhook.disabled',
        siteId: claimed.event.siteId,
        data: {
          webhookId: hook.id,
          url: hook.url,
          consecutiveFailures: disabled.consecutiveFailures,
          reason,
        },
      });
    }
    return recorded;
  }

  /** Posts the event, signed, through the guarded fetcher; never throws. */
  private async send(hook: WebhookRecord, delivery: WebhookDelivery): Promise<WebhookAttempt> {
    const at = this.options.clock.now();
    const body = JSON.stringify(delivery.event);
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const response = await this.options.outbound(hook.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
          [SIGNATURE_HEADER]: signatureHeader({ secret: hook.secret, body, at }),
          'Trellis-Event-Id': delivery.event.id,
          'Trellis-Event-Type': delivery.event.type,
          'Trellis-Delivery-Id': delivery.id,
          'Trellis-Webhook-Id': hook.id,
        },
        body,
      });
      const text = await response.text().catch(() => '');
      const ok = response.status >= 200 && response.status < 300;
      return {
        at: at.toISOString(),
        status: response.status,
        durationMs: took(),
        ok,
        error: ok ? null : `the receiver answered ${response.status}`,
        responseExcerpt: text.slice(0, EXCERPT_CHARS),
      };
    } catch (error) {
      return {
        at: at.toISOString(),
        status: null,
        durationMs: took(),
        ok: false,
        error: error instanceof Error ? error.message : String(error),
        responseExcerpt: null,
      };
    }
  }
}
