import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../../test/helpers/test-platform';
import { withQueryTimeout } from './query-timeout';

describe('withQueryTimeout', () => {
  it('passes results and errors through when the query finishes in time', async () => {
    await expect(withQueryTimeout(Promise.resolve(42), 1000)).resolves.toBe(42);
    await expect(withQueryTimeout(Promise.reject(new Error('boom')), 1000)).rejects.toThrow('boom');
  });

  it('rejects with 504 query_timeout when the query outlives the limit', async () => {
    const never = new Promise(() => {});
    await expect(withQueryTimeout(never, 5)).rejects.toMatchObject({ status: 504, code: 'query_timeout' });
  });
});

describe('MAX_QUERY_TIMEOUT_MS', () => {
  it('answers 504 when an engine query waits past the limit', async () => {
    const tp = await startTestPlatform({
      env: { MAX_QUERY_TIMEOUT_MS: '100' },
      beforeReady: (app) => {
        app.get(
          '/api/sites/query-timeout-test',
          { config: { siteScope: 'none', permission: 'site:read' } },
          async () => {
            const platform = app.trellis.platform;
            // A read in a transaction: it queues behind any transaction already running on the graph.
            const page = await app.withQueryTimeout(
              platform.transaction((tx) => tx.findNodes({ label: 'User' })),
            );
            return { total: page.total };
          },
        );
      },
    });
    try {
      const headers = { authorization: `Bearer ${tp.ownerKey}` };
      const fast = await tp.app.inject({ method: 'GET', url: '/api/sites/query-timeout-test', headers });
      expect(fast.statusCode, fast.body).toBe(200);
      // A long transaction (a bulk write, say) holds the platform graph until the request answered
      // (at most a minute, so a broken test cannot hang).
      let release: () => void = () => {};
      const held = tp.app.trellis.platform.transaction(async (tx) => {
        await tx.getNode('user:owner');
        await new Promise<void>((resolve) => {
          release = resolve;
          setTimeout(resolve, 60_000);
        });
      });
      const res = await tp.app.inject({ method: 'GET', url: '/api/sites/query-timeout-test', headers });
      release();
      await held;
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ code: 'query_timeout' });
      expect(res.json().error).toContain('100 ms');
    } finally {
      await tp.close();
    }
  });
});
