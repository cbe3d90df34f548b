import { describe, expect, it } from 'vitest';
import { setUpCommandTests } from '../../test-support/command-test';

const t = setUpCommandTests();

const hook = {
  id: 'wh_01',
  url: 'https://example.org/hooks/trellis',
  events: ['build.failed', 'deployment.live'],
  description: null,
  enabled: true,
  consecutiveFailures: 0,
  disabledReason: null,
  disabledAt: null,
  secretPrefix: 'whsec_abcd',
  createdAt: '2026-06-01T10:00:00.000Z',
  createdBy: 'user:sam',
  updatedAt: '2026-06-01T10:00:00.000Z',
};
const event = {
  id: 'evt_01',
  type: 'build.failed',
  siteId: 'site:blog',
  occurredAt: '2026-06-01T10:00:00.000Z',
  data: { buildId: 'b1' },
};
const delivery = {
  id: 'whd_01',
  webhookId: 'wh_01',
  eventId: 'evt_01',
  eventType: 'build.failed',
  status: 'failed',
  attempts: [
    {
      at: '2026-06-01T10:00:00.000Z',
      status: 500,
      durationMs: 12,
      ok: false,
      error: 'the receiver answered 500',
      responseExcerpt: 'no',
    },
  ],
  nextAttemptAt: null,
  createdAt: '2026-06-01T10:00:00.000Z',
  redeliveryOf: null,
  event,
};

describe('cms webhooks', () => {
  it('create sends the URL and the event filter, and prints the secret once', async () => {
    const server = await t.serve({
      'POST /api/webhooks': () => ({ status: 201, body: { ...hook, secret: 'whsec_abcdefghijklmnop' } }),
    });
    const result = await t.cli([
      'webhooks',
      'create',
      'https://example.org/hooks/trellis',
      '--events',
      'build.failed,deployment.live',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Created webhook wh_01');
    expect(result.stdout).toContain('whsec_abcdefghijklmnop');
    const sent = server.hits('POST /api/webhooks')[0]!;
    expect(sent.body).toEqual({
      url: 'https://example.org/hooks/trellis',
      events: ['build.failed', 'deployment.live'],
    });
    expect(sent.headers['x-site-id']).toBe('site:blog');
  });

  it('refuses an unknown event name before calling', async () => {
    const server = await t.serve({});
    const result = await t.cli(['webhooks', 'create', 'https://example.org/x', '--events', 'build.exploded']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('unknown event build.exploded');
    expect(server.requests).toHaveLength(0);
  });

  it('list, deliveries, redeliver, test and rm call their routes', async () => {
    const server = await t.serve({
      'GET /api/webhooks': () => ({
        body: [{ ...hook, enabled: false, disabledReason: 'too many failures' }],
      }),
      'GET /api/webhooks/wh_01/deliveries': () => ({ body: [delivery], headers: { 'x-total-count': '7' } }),
      'POST /api/webhooks/wh_01/deliveries/whd_01/redeliver': () => ({
        status: 202,
        body: { ...delivery, id: 'whd_02', status: 'pending', attempts: [], redeliveryOf: 'whd_01' },
      }),
      'POST /api/webhooks/wh_01/test': () => ({
        status: 202,
        body: { ...delivery, id: 'whd_03', eventType: 'webhook.test', status: 'pending', attempts: [] },
      }),
      'DELETE /api/webhooks/wh_01': () => ({ status: 204 }),
    });
    const list = await t.cli(['webhooks', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      /wh_01\s+https:\/\/example.org\/hooks\/trellis\s+build.failed,deployment.live\s+disabled \(too many failures\)/,
    );
    const deliveries = await t.cli(['webhooks', 'deliveries', 'wh_01', '--status', 'failed', '--limit', '1']);
    expect(deliveries.code, deliveries.stderr).toBe(0);
    expect(deliveries.stdout).toMatch(/whd_01\s+build.failed\s+failed\s+1\s+500 the receiver answered 500/);
    expect(deliveries.stdout).toContain('1 of 7');
    expect(server.hits('GET /api/webhooks/wh_01/deliveries')[0]!.url).toBe(
      '/api/webhooks/wh_01/deliveries?status=failed&limit=1',
    );
    const again = await t.cli(['webhooks', 'redeliver', 'wh_01', 'whd_01']);
    expect(again.stdout).toContain('Queued whd_02: build.failed evt_01 again.');
    const test = await t.cli(['webhooks', 'test', 'wh_01']);
    expect(test.stdout).toContain('Queued test event evt_01 as whd_03.');
    const rm = await t.cli(['webhooks', 'rm', 'wh_01']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(server.hits('DELETE /api/webhooks/wh_01')).toHaveLength(1);
  });
});
