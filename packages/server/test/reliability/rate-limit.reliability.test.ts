import { afterEach, describe, expect, it } from 'vitest';
import { api, type ServerProcess, startServer } from './harness';

/**
 * The rate limit (RATE_LIMIT_MAX per RATE_LIMIT_WINDOW_MS): a flood with one valid key, a flood
 * with one bad key, and a flood of ever-new bad keys must each meet 429 (with Retry-After and
 * the error shape) once past the limit, and never a 5xx.
 */

const MAX = 30;
let server: ServerProcess | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function flood(count: number, key: (i: number) => string): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const answer = await api(server!, 'GET', '/api/sites', { key: key(i) });
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status === 429) {
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
  }
  return statuses;
}

const limited = { RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: '60000' };

describe(`rate limit (${MAX} a minute)`, () => {
  it('limits one valid key, and one bad key, past the limit', async () => {
    server = await startServer(limited);
    const valid = await flood(MAX * 2, () => server!.ownerKey);
    expect(valid.get(429) ?? 0).toBeGreaterThanOrEqual(MAX / 2);
    expect([...valid.keys()].filter((status) => status >= 500)).toEqual([]);
    const bad = await flood(MAX * 2, () => 'tk_000000000000_not-a-real-key');
    expect(bad.get(429) ?? 0).toBeGreaterThanOrEqual(MAX / 2);
    expect([...bad.keys()].filter((status) => status >= 500)).toEqual([]);
  });

  it('limits a flood of ever-new bad keys from one client', async () => {
    server = await startServer(limited);
    const rotating = await flood(MAX * 4, (i) => `tk_${String(i).padStart(12, '0')}_not-a-real-key`);
    expect([...rotating.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(rotating.get(429) ?? 0, JSON.stringify([...rotating])).toBeGreaterThanOrEqual(MAX * 2);
  });
});
