import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../../test/helpers/test-platform';

describe('body size limit', () => {
  it('answers 413 payload_too_large for a body over BODY_LIMIT_BYTES, and writes nothing', async () => {
    const tp = await startTestPlatform({ env: { BODY_LIMIT_BYTES: '2048' } });
    try {
      const res = await tp.app.inject({
        method: 'POST',
        url: '/api/sites',
        headers: { authorization: `Bearer ${tp.ownerKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'Big', description: 'x'.repeat(4096) }),
      });
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe('payload_too_large');
      expect(await tp.app.trellis.platform.getNode('site:big')).toBeNull();
    } finally {
      await tp.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request when the server closes, and refuses new ones', async () => {
    let entered: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const tp = await startTestPlatform({
      beforeReady: (app) => {
        app.get('/api/slow-shutdown-test', { config: { siteScope: 'none', public: true } }, async () => {
          entered();
          await new Promise((resolve) => setTimeout(resolve, 300));
          // The engine must still be open: it closes only after in-flight requests finish.
          const owner = await app.trellis.platform.getNode('user:owner');
          return { ok: true, owner: owner?.id ?? null };
        });
      },
    });
    await tp.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = tp.app.server.address() as AddressInfo;
    const pending = fetch(`http://127.0.0.1:${port}/api/slow-shutdown-test`);
    await inFlight;
    const closing = tp.close();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ ok: true, owner: 'user:owner' });
    await closing;
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  });
});
