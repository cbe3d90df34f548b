import { afterEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

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
});
