import rateLimit from '@fastify/rate-limit';
import { TrellisError } from '@trelliscms/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';
import { loadConfig } from '../../config';
import { rateLimitKey, rateLimitPlugin } from './rate-limit';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

const LIMIT = 5;

describe('rate limiting', () => {
  it('answers 429 with Retry-After once a credential floods, whatever its body or X-Forwarded-For say', async () => {
    tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_MS: '60000' } });
    const owner = { authorization: `Bearer ${tp.ownerKey}` };
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      statuses.push((await tp.app.inject({ method: 'GET', url: '/api/sites', headers: owner })).statusCode);
    }
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    const limited = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: owner });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Neither a spoofed X-Forwarded-For (no trusted proxy is configured) nor a body field opens a new bucket.
    const spoofed = await tp.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { ...owner, 'x-forwarded-for': '203.0.113.9' },
    });
    expect(spoofed.statusCode).toBe(429);
    const withBody = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: owner,
      payload: { name: 'x', apiKey: 'other', clientId: 'someone-else' },
    });
    expect(withBody.statusCode).toBe(429);
    // Another credential from the same address has its own bucket.
    const other = await tp.addUser({ name: 'other', platformRole: 'admin' });
    expect(
      (
        await tp.app.inject({
          method: 'GET',
          url: '/api/sites',
          headers: { authorization: `Bearer ${other.key}` },
        })
      ).statusCode,
    ).toBe(200);
    // The liveness probe stays reachable.
    expect((await tp.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('limits unauthenticated floods before authentication', async () => {
    tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: String(LIMIT) } });
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1) {
      statuses.push((await tp.app.inject({ method: 'GET', url: '/api/sites' })).statusCode);
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(statuses[LIMIT]).toBe(429);
  });

  it('keys by the forwarded client address only behind a configured trusted proxy', async () => {
    tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: String(LIMIT), TRUST_PROXY: '127.0.0.1' } });
    const from = (client: string) => ({ authorization: `Bearer ${tp.ownerKey}`, 'x-forwarded-for': client });
    for (let i = 0; i < LIMIT; i += 1) {
      expect(
        (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from('198.51.100.1') })).statusCode,
      ).toBe(200);
    }
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from('198.51.100.1') })).statusCode,
    ).toBe(429);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from('198.51.100.2') })).statusCode,
    ).toBe(200);
  });

  it('limits a flood of rotating bad credentials per client address (issue 16 item 5), with the default settings', async () => {
    // The default limit (the test platform raises it for other tests): 30 failures per 60 s.
    const { AUTH_FAILURE_MAX, RATE_LIMIT_WINDOW_MS } = loadConfig({});
    expect([AUTH_FAILURE_MAX, RATE_LIMIT_WINDOW_MS]).toEqual([30, 60_000]);
    tp = await startTestPlatform({
      env: { TRUST_PROXY: '127.0.0.1', AUTH_FAILURE_MAX: String(AUTH_FAILURE_MAX) },
    });
    const from = (client: string, key: string) => ({
      authorization: `Bearer ${key}`,
      'x-forwarded-for': client,
    });
    const attacker = '198.51.100.7';
    // The owner, behind the same address, authenticated before the flood.
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from(attacker, tp.ownerKey) }))
        .statusCode,
    ).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 800; i += 1) {
      const key = `trellis_bad_${i.toString(36).padStart(8, '0')}_${'x'.repeat(24)}`;
      const res = await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from(attacker, key) });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(770).fill(429));
    // No credential at all is limited too, and so is a new, valid key from that address.
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: { 'x-forwarded-for': attacker } }))
        .statusCode,
    ).toBe(429);
    const newcomer = await tp.addUser({ name: 'newcomer', platformRole: 'admin' });
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from(attacker, newcomer.key) }))
        .statusCode,
    ).toBe(429);
    // A credential that authenticated recently still works; another client is not affected;
    // the liveness probe stays reachable.
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from(attacker, tp.ownerKey) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from('198.51.100.8', 'bad') }))
        .statusCode,
    ).toBe(401);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/sites', headers: from('198.51.100.8', newcomer.key) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await tp.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-forwarded-for': attacker } }))
        .statusCode,
    ).toBe(200);
  });

  it('counts an IPv6 client by its /64, so rotating addresses inside it opens no new bucket', async () => {
    tp = await startTestPlatform({ env: { TRUST_PROXY: '127.0.0.1', AUTH_FAILURE_MAX: '5' } });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const res = await tp.app.inject({
        method: 'GET',
        url: '/api/sites',
        headers: {
          authorization: `Bearer bad-${i}`,
          'x-forwarded-for': `2001:db8:1:2::${(i + 1).toString(16)}`,
        },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(5).fill(429)]);
    const neighbour = await tp.app.inject({
      method: 'GET',
      url: '/api/sites',
      headers: { authorization: 'Bearer bad', 'x-forwarded-for': '2001:db8:1:3::1' },
    });
    expect(neighbour.statusCode).toBe(401);
  });
});

describe('the rate limit against @fastify/rate-limit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** An app with one public and one credentialed route, limited by `limit`. */
  async function appWith(limit: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> {
    const app = Fastify({ logger: false });
    await limit(app);
    app.get('/open', { config: { public: true } }, async () => ({ ok: true }));
    app.get('/x', async () => ({ ok: true }));
    await app.ready();
    return app;
  }

  it("answers with the statuses, headers and bodies its plugin's hook gave, request by request", async () => {
    const max = 3;
    const timeWindowMs = 10_000;
    const ours = await appWith(async (app) => {
      await app.register(rateLimitPlugin, { max, timeWindowMs, maxAuthFailures: 1000 });
    });
    // What the plugin did before: the library's hook, with our key and our 429.
    const library = await appWith(async (app) => {
      await app.register(rateLimit, {
        global: false,
        max,
        timeWindow: timeWindowMs,
        keyGenerator: rateLimitKey,
        errorResponseBuilder: (_request, context) => {
          const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
          return TrellisError.of(
            'rate_limited',
            { retryAfter: seconds },
            { headers: { 'retry-after': String(seconds) } },
          );
        },
      });
      const limit = app.rateLimit();
      app.addHook('onRequest', (request, reply, done) => {
        limit.call(app, request, reply).then(
          () => done(),
          (error: Error) => done(error),
        );
      });
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2026, 10, 26, 12, 0, 0);
    // Two clients and two credentials, across two windows, with time moving inside each.
    const steps: Array<[number, string, Record<string, string>]> = [];
    for (let i = 0; i < 12; i += 1) {
      const at = start + (i < 6 ? i * 700 : timeWindowMs + i * 300);
      const headers: Record<string, string> =
        i % 3 === 2 ? { authorization: 'Bearer other' } : { authorization: 'Bearer one' };
      steps.push([at, i % 4 === 3 ? '/open' : '/x', headers]);
    }
    const seen = (response: Awaited<ReturnType<FastifyInstance['inject']>>) => ({
      status: response.statusCode,
      body: response.body,
      limit: response.headers['x-ratelimit-limit'],
      remaining: response.headers['x-ratelimit-remaining'],
      reset: response.headers['x-ratelimit-reset'],
      retryAfter: response.headers['retry-after'],
    });
    const statuses: number[] = [];
    for (const [at, url, headers] of steps) {
      vi.setSystemTime(at);
      const a = seen(await library.inject({ method: 'GET', url, headers }));
      vi.setSystemTime(at);
      const b = seen(await ours.inject({ method: 'GET', url, headers }));
      expect(b, `${url} at +${at - start} ms`).toEqual(a);
      statuses.push(b.status);
    }
    // Both sides of the limit were seen.
    expect(statuses).toContain(429);
    expect(statuses).toContain(200);
    await ours.close();
    await library.close();
  });
});
