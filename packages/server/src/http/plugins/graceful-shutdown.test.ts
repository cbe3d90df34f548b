import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../../test/helpers/keep-alive-client';
import { startTestPlatform, type TestPlatform } from '../../../test/helpers/test-platform';

let tp: TestPlatform | undefined;
afterEach(async () => {
  await tp?.close();
  tp = undefined;
});

describe('drain (graceful shutdown)', () => {
  it('finishes requests in flight, answers new ones 503 shutting_down with Connection: close on kept-alive sockets', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const isStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    tp = await startTestPlatform({
      beforeReady: (app) => {
        app.get('/api/health/slow-test', { config: { siteScope: 'none', public: true } }, async () => {
          started();
          await held;
          return { done: true };
        });
      },
    });
    const { app } = tp;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const warm = await Promise.all(
        Array.from({ length: 4 }, () => send(agent, url, { method: 'GET', path: '/api/health' })),
      );
      expect(warm.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      const slow = send(agent, url, { method: 'GET', path: '/api/health/slow-test' });
      await isStarted;
      let isDrained = false;
      const drained = app.drain({ deadline: Date.now() + 60_000, idleGraceMs: 200 }).then((left) => {
        isDrained = true;
        return left;
      });
      const late = await Promise.all(
        Array.from({ length: 3 }, () => send(agent, url, { method: 'GET', path: '/api/health' })),
      );
      for (const answer of late) {
        expect(answer.error).toBeNull();
        expect(answer.reusedSocket).toBe(true);
        expect(answer.status).toBe(503);
        expect(answer.headers.connection).toBe('close');
        expect(answer.headers['retry-after']).toBe('5');
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'shutting_down' });
      }
      // the request in flight holds the drain open
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(isDrained).toBe(false);
      release();
      const answer = await slow;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ done: true });
      expect(answer.headers.connection).toBe('close');
      expect(await drained).toEqual({ inFlight: 0, openSockets: 0 });
    } finally {
      release();
      agent.destroy();
    }
  });

  it('gives up at the deadline and says what is still running', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    tp = await startTestPlatform({
      beforeReady: (app) => {
        app.get('/api/health/stuck-test', { config: { siteScope: 'none', public: true } }, async () => {
          await held;
          return { done: true };
        });
      },
    });
    const stuck = tp.app.inject({ method: 'GET', url: '/api/health/stuck-test' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const left = await tp.app.drain({ deadline: Date.now() + 200 });
    expect(left.inFlight).toBe(1);
    release();
    expect((await stuck).statusCode).toBe(200);
  });
});
