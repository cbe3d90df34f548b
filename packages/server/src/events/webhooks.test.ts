import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyWebhookSignature } from '@trelliscms/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../test/helpers/content-test-site';
import { TEST_OWNER_KEY } from '../../test/helpers/test-platform';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/helpers/webhook-receiver';
import { loadConfig } from '../config';
import { createEmbeddedEngine } from '../engines/embedded';
import { buildApp } from '../http/app';
import type { Clock } from '../shared/clock';
import { WebhookDispatcher } from './webhook-dispatcher';

const SECRET = 'whsec_test_0123456789abcdef';
const BASE_MS = 10_000;

let site: ContentTestSite | null = null;
let receiver: WebhookReceiver | null = null;
afterEach(async () => {
  await site?.close();
  await receiver?.close();
  site = null;
  receiver = null;
});

/** A clock the test moves by hand. */
function handClock(start: string) {
  let at = Date.parse(start);
  const clock: Clock = { now: () => new Date(at) };
  return { clock, advance: (ms: number) => (at += ms), now: () => at };
}

/** A site whose server only queues (the test sends with `tick()`), allowed to reach 127.0.0.1. */
async function siteWithWebhooks(clock: Clock, env: Record<string, string> = {}) {
  return createContentTestSite({
    clock,
    env: {
      CMS_WEBHOOKS: '0',
      CMS_OUTBOUND_ALLOW: '127.0.0.1',
      CMS_WEBHOOK_RETRY_BASE_MS: String(BASE_MS),
      CMS_WEBHOOK_RETRY_MAX_MS: String(BASE_MS * 4),
      ...env,
    },
  });
}

async function subscribe(s: ContentTestSite, body: Record<string, unknown>) {
  const res = await s.request({ method: 'POST', url: '/api/webhooks', payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string; enabled: boolean };
}

/** Lets the event listeners queue, then sends what is due. */
async function settle(s: ContentTestSite) {
  await s.platform.app.events.bus.drain();
  return s.platform.app.events.webhooks.tick();
}

async function deliveries(s: ContentTestSite, webhookId: string) {
  const res = await s.request({ method: 'GET', url: `/api/webhooks/${webhookId}/deliveries` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

describe('webhook deliveries', () => {
  it('are signed, retried with backoff while the receiver fails, and succeed when it recovers', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await siteWithWebhooks(time.clock);
    receiver = await startWebhookReceiver({ secret: SECRET, answer: (n) => (n <= 2 ? 500 : 204) });
    const hook = await subscribe(site, { url: receiver.url, events: ['item.created'], secret: SECRET });
    expect(hook.secret).toBe(SECRET);
    const listed = (await site.request({ method: 'GET', url: '/api/webhooks' })).json();
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    await site.createType({
      name: 'note',
      label: 'Note',
      nodeLabel: 'Note',
      keyField: 'title',
      fields: [{ name: 'title', type: 'string', required: true }],
    });
    expect(
      (await site.request({ method: 'POST', url: '/api/content/note', payload: { title: 'First' } }))
        .statusCode,
    ).toBe(201);

    await settle(site);
    expect(receiver.received).toHaveLength(1);
    let [delivery] = await deliveries(site, hook.id);
    expect(delivery).toMatchObject({ status: 'pending', eventType: 'item.created' });
    expect(delivery!.attempts).toMatchObject([
      { ok: false, status: 500, error: 'the receiver answered 500' },
    ]);
    expect(delivery!.attempts[0].responseExcerpt).toBe('not now');
    expect(Date.parse(delivery!.nextAttemptAt)).toBe(time.now() + BASE_MS);

    // Not due yet: nothing is sent.
    time.advance(BASE_MS - 1);
    await settle(site);
    expect(receiver.received).toHaveLength(1);
    time.advance(1);
    await settle(site);
    expect(receiver.received).toHaveLength(2);
    [delivery] = await deliveries(site, hook.id);
    expect(Date.parse(delivery!.nextAttemptAt)).toBe(time.now() + 2 * BASE_MS);
    time.advance(2 * BASE_MS);
    await settle(site);
    expect(receiver.received).toHaveLength(3);
    [delivery] = await deliveries(site, hook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    expect(delivery!.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 204]);

    for (const got of receiver.received) {
      expect(got.isSignatureValid).toBe(true);
      // The SDK's helper accepts what the server sent (at the server's time) and returns the event.
      const verified = await verifyWebhookSignature({
        payload: got.body,
        header: got.headers['trellis-signature'] as string,
        secret: SECRET,
        now: new Date(got.t * 1000),
      });
      expect(verified.id).toBe(delivery!.eventId);
      expect(got.headers['trellis-event-type']).toBe('item.created');
      expect(got.headers['trellis-event-id']).toBe(delivery!.eventId);
      expect(got.headers['trellis-delivery-id']).toBe(delivery!.id);
      expect(got.json).toMatchObject({
        id: delivery!.eventId,
        type: 'item.created',
        siteId: site.siteId,
        data: { id: 'note:first', type: 'note', version: 1 },
      });
    }
    // The signature's time is the server's clock at each attempt.
    expect(receiver.received.map((r) => r.t * 1000)).toEqual([
      Date.parse('2026-06-01T10:00:00.000Z'),
      Date.parse('2026-06-01T10:00:10.000Z'),
      Date.parse('2026-06-01T10:00:30.000Z'),
    ]);

    // An update is not in the filter: nothing is queued.
    await site.request({ method: 'PATCH', url: '/api/content/note/note:first', payload: { title: 'Again' } });
    await settle(site);
    expect(await deliveries(site, hook.id)).toHaveLength(1);
    expect(receiver.received).toHaveLength(3);
  });

  it('disables a subscription after repeated failures, gives up its queue, and tells its admins', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await siteWithWebhooks(time.clock, { CMS_WEBHOOK_DISABLE_AFTER: '3' });
    receiver = await startWebhookReceiver({ secret: SECRET, answer: () => 503 });
    const hook = await subscribe(site, { url: receiver.url, secret: SECRET });
    const test = await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` });
    expect(test.statusCode, test.body).toBe(202);
    for (let i = 0; i < 3; i += 1) {
      await settle(site);
      time.advance(BASE_MS * 4);
    }
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received[0]!.json).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    const stored = (await site.request({ method: 'GET', url: `/api/webhooks/${hook.id}` })).json();
    expect(stored).toMatchObject({ enabled: false, consecutiveFailures: 3 });
    expect(stored.disabledReason).toContain('3 failed delivery attempts in a row');
    const [delivery] = await deliveries(site, hook.id);
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    // Nothing more is sent, and a test event is refused.
    await settle(site);
    expect(receiver.received).toHaveLength(3);
    const refused = await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('webhook_disabled');
    // The site's owner (an admin) has a notification saying so.
    await site.platform.app.events.bus.drain();
    const inbox = (await site.request({ method: 'GET', url: '/api/notifications' })).json();
    expect(inbox).toMatchObject([{ type: 'webhook.disabled', siteId: site.siteId, readAt: null }]);
    expect(inbox[0].title).toContain(hook.id);
    // Enabling it again starts afresh.
    const enabled = await site.request({
      method: 'PATCH',
      url: `/api/webhooks/${hook.id}`,
      payload: { enabled: true },
    });
    expect(enabled.json()).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
  });

  it('redelivers a finished delivery as a new one with the same event, and refuses one still pending', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await siteWithWebhooks(time.clock);
    receiver = await startWebhookReceiver({ secret: SECRET, answer: (n) => (n === 1 ? 500 : 200) });
    const hook = await subscribe(site, { url: receiver.url, secret: SECRET });
    const queued = (await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` })).json();
    await settle(site);
    const pending = await site.request({
      method: 'POST',
      url: `/api/webhooks/${hook.id}/deliveries/${queued.id}/redeliver`,
    });
    expect(pending.statusCode).toBe(409);
    expect(pending.json().code).toBe('webhook_delivery_pending');
    time.advance(BASE_MS);
    await settle(site);
    const done = (
      await site.request({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries/${queued.id}` })
    ).json();
    expect(done.status).toBe('succeeded');

    const again = await site.request({
      method: 'POST',
      url: `/api/webhooks/${hook.id}/deliveries/${queued.id}/redeliver`,
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({
      status: 'pending',
      redeliveryOf: queued.id,
      eventId: queued.eventId,
    });
    await settle(site);
    expect(receiver.received).toHaveLength(3);
    const [, second, third] = receiver.received;
    expect(third!.headers['trellis-event-id']).toBe(second!.headers['trellis-event-id']);
    expect(third!.headers['trellis-delivery-id']).toBe(again.json().id);
    expect(third!.isSignatureValid).toBe(true);
    expect(
      (
        await site.request({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries?status=succeeded` })
      ).json(),
    ).toHaveLength(2);
    // Deleting the subscription deletes its deliveries.
    expect((await site.request({ method: 'DELETE', url: `/api/webhooks/${hook.id}` })).statusCode).toBe(204);
    expect(
      (await site.request({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries` })).statusCode,
    ).toBe(404);
  });

  it('go through the guarded fetcher: a loopback receiver that is not allow-listed is never reached', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await createContentTestSite({ clock: time.clock, env: { CMS_WEBHOOKS: '0' } });
    receiver = await startWebhookReceiver({ secret: SECRET });
    const hook = await subscribe(site, { url: receiver.url });
    expect(hook.secret).toMatch(/^whsec_/);
    await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` });
    await settle(site);
    const [delivery] = await deliveries(site, hook.id);
    expect(delivery!.attempts).toHaveLength(1);
    expect(delivery!.attempts[0]).toMatchObject({ ok: false, status: null });
    expect(delivery!.attempts[0].error).toMatch(/refused|not allowed|private|loopback/i);
    expect(receiver.received).toHaveLength(0);
  });

  it('two dispatchers on the same data send each attempt once (claimed with a compare-and-set)', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await siteWithWebhooks(time.clock);
    receiver = await startWebhookReceiver({ secret: SECRET });
    const hook = await subscribe(site, { url: receiver.url, secret: SECRET });
    for (let i = 0; i < 5; i += 1) {
      expect((await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` })).statusCode).toBe(
        202,
      );
    }
    const app = site.platform.app;
    const other = () =>
      new WebhookDispatcher({
        engine: app.trellis.engine,
        platform: app.trellis.platform,
        bus: app.events.bus,
        clock: time.clock,
        outbound: app.trellis.outbound,
        log: app.log,
        retryBaseMs: BASE_MS,
        retryMaxMs: BASE_MS,
        maxAttempts: 3,
        disableAfter: 10,
        intervalMs: 60_000,
        leaseMs: 60_000,
        userAgent: 'test',
        retentionDays: 0,
      });
    const [a, b, c] = await Promise.all([other().tick(), other().tick(), app.events.webhooks.tick()]);
    expect(a.length + b.length + c.length).toBe(5);
    expect(receiver.received).toHaveLength(5);
    expect(new Set(receiver.received.map((r) => r.headers['trellis-delivery-id'])).size).toBe(5);
    expect((await deliveries(site, hook.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('deletes finished deliveries older than the retention, never pending ones', async () => {
    const time = handClock('2026-06-01T10:00:00.000Z');
    site = await siteWithWebhooks(time.clock, { CMS_WEBHOOK_RETENTION_DAYS: '2' });
    receiver = await startWebhookReceiver({ secret: SECRET, answer: (n) => (n === 1 ? 200 : 500) });
    const hook = await subscribe(site, { url: receiver.url, secret: SECRET });
    const old = (await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` })).json();
    await settle(site); // the first succeeds (and prunes nothing: it is new)
    time.advance(3 * 86_400_000);
    const failing = (await site.request({ method: 'POST', url: `/api/webhooks/${hook.id}/test` })).json();
    await settle(site); // the second fails and stays pending; the old one is past the retention
    const left = (await deliveries(site, hook.id)).map((d) => [d.id, d.status]);
    expect(left).toEqual([[failing.id, 'pending']]);
    expect(left.flat()).not.toContain(old.id);
  });

  it('only admins manage webhooks', async () => {
    site = await siteWithWebhooks(handClock('2026-06-01T10:00:00.000Z').clock);
    const editor = await site.platform.addUser({ name: 'ed', siteId: site.siteId, role: 'editor' });
    const res = await site.request({
      method: 'GET',
      url: '/api/webhooks',
      headers: { authorization: `Bearer ${editor.key}` },
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('the delivery queue survives a restart', () => {
  it('a delivery queued by one server is sent by the next one started on the same data', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trellis-webhook-restart-'));
    receiver = await startWebhookReceiver({ secret: SECRET });
    const env = (sending: boolean) =>
      loadConfig({
        CMS_DATA_DIR: dataDir,
        CMS_OWNER_KEY: TEST_OWNER_KEY,
        LOG_LEVEL: 'silent',
        CMS_SCHEDULER: '0',
        CMS_WEBHOOKS: sending ? '1' : '0',
        CMS_OUTBOUND_ALLOW: '127.0.0.1',
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
      });
    const headers = { authorization: `Bearer ${TEST_OWNER_KEY}` };
    try {
      // The first server only queues (it stops before sending).
      const first = await buildApp({
        config: env(false),
        engine: createEmbeddedEngine({ dataDir }),
        logger: false,
      });
      await first.ready();
      const created = await first.inject({
        method: 'POST',
        url: '/api/sites',
        headers,
        payload: { name: 'Restart', slug: 'restart', starterKit: 'none' },
      });
      const siteId = created.json().id as string;
      const siteHeaders = { ...headers, 'x-site-id': siteId };
      const hook = (
        await first.inject({
          method: 'POST',
          url: '/api/webhooks',
          headers: siteHeaders,
          payload: { url: receiver.url, secret: SECRET, events: ['webhook.test', 'item.created'] },
        })
      ).json();
      const queued = await first.inject({
        method: 'POST',
        url: `/api/webhooks/${hook.id}/test`,
        headers: siteHeaders,
      });
      expect(queued.statusCode).toBe(202);
      await first.close();
      expect(receiver.received).toHaveLength(0);

      const second = await buildApp({
        config: env(true),
        engine: createEmbeddedEngine({ dataDir }),
        logger: false,
      });
      try {
        await second.ready();
        await receiver.waitFor(1);
        expect(receiver.received[0]).toMatchObject({
          isSignatureValid: true,
          json: { type: 'webhook.test', siteId },
        });
        // The attempt is recorded once the receiver answered.
        let status = 'pending';
        while (status === 'pending') {
          await second.events.webhooks.tick();
          status = (
            await second.inject({
              method: 'GET',
              url: `/api/webhooks/${hook.id}/deliveries/${queued.json().id}`,
              headers: siteHeaders,
            })
          ).json().status;
        }
        expect(status).toBe('succeeded');
        expect(receiver.received).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the OpenAPI document', () => {
  it('lists the webhook and notification routes and the delivery the server sends', async () => {
    site = await siteWithWebhooks(handClock('2026-06-01T10:00:00.000Z').clock);
    const doc = (await site.platform.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const route of [
      '/api/webhooks',
      '/api/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      '/api/webhooks/{id}/test',
      '/api/notifications',
      '/api/notifications/read-all',
    ]) {
      expect(Object.keys(doc.paths), route).toContain(route);
    }
    expect(doc.webhooks.trellisEvent.post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/TrellisEvent',
    );
    expect(doc.components.schemas.TrellisEvent.required).toEqual([
      'id',
      'type',
      'siteId',
      'occurredAt',
      'data',
    ]);
  });
});
