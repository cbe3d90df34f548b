import { afterEach, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

let tp: TestPlatform;
afterEach(async () => {
  await tp?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('load shedding', () => {
  it('sheds requests with 503 under memory pressure and keeps health reachable', async () => {
    // A heap limit of 1 MB: the process genuinely uses more, so every sample is over it.
    tp = await startTestPlatform({
      env: {
        LOAD_SHED_MAX_HEAP_USED_BYTES: String(1024 * 1024),
        LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0',
        LOAD_SHED_SAMPLE_INTERVAL_MS: '50',
      },
    });
    const ask = () =>
      tp.app.inject({
        method: 'GET',
        url: '/api/sites',
        headers: { authorization: `Bearer ${tp.ownerKey}` },
      });
    // Wait for the sampler (every 50 ms) to see the heap over the limit, however busy the machine.
    let res = await ask();
    for (const deadline = Date.now() + 60_000; res.statusCode !== 503 && Date.now() < deadline; ) {
      await sleep(20);
      res = await ask();
    }
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'overloaded' });
    expect(res.json().error).toContain('heap memory');
    expect(res.headers['retry-after']).toBe('10');
    expect((await tp.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect((await tp.app.inject({ method: 'GET', url: '/api/health/detail' })).statusCode).toBe(200);
  });

  it('sheds requests with 503 after the event loop was blocked, and recovers', async () => {
    tp = await startTestPlatform({
      env: { LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '40', LOAD_SHED_SAMPLE_INTERVAL_MS: '50' },
    });
    const headers = { authorization: `Bearer ${tp.ownerKey}` };
    // Start from a calm loop (starting the app itself may have blocked it).
    let calm = false;
    for (let i = 0; i < 100 && !calm; i += 1) {
      await sleep(20);
      calm = (await tp.app.inject({ method: 'GET', url: '/api/sites', headers })).statusCode === 200;
    }
    expect(calm).toBe(true);
    let shed = 0;
    for (let attempt = 0; attempt < 5 && shed === 0; attempt += 1) {
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // Block the event loop for real, as a CPU-bound request would.
      }
      // Let the overdue sampling timer run first, then ask.
      await new Promise((resolve) => setImmediate(resolve));
      const res = await tp.app.inject({ method: 'GET', url: '/api/sites', headers });
      if (res.statusCode === 503) {
        shed += 1;
        expect(res.json().error).toContain('event-loop delay');
      }
    }
    expect(shed).toBe(1);
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i += 1) {
      await sleep(20);
      recovered = (await tp.app.inject({ method: 'GET', url: '/api/sites', headers })).statusCode === 200;
    }
    expect(recovered).toBe(true);
  });
});
