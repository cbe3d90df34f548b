import underPressure from '@fastify/under-pressure';
import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface LoadSheddingOptions {
  /** Mean event-loop delay over one sample, in ms; 0 = off. */
  maxEventLoopDelayMs: number;
  /** V8 heap used, in bytes; 0 = off. */
  maxHeapUsedBytes: number;
  /** Resident set size, in bytes; 0 = off. */
  maxRssBytes: number;
  /** Sampling period, in ms. */
  sampleIntervalMs: number;
}

const REASONS: Record<string, string> = {
  eventLoopDelay: 'event-loop delay',
  heapUsedBytes: 'heap memory',
  rssBytes: 'resident memory',
  eventLoopUtilization: 'event-loop utilisation',
  healthCheck: 'failed health check',
};

/**
 * Sheds load with 503 `overloaded` (and `Retry-After`) while the process is under memory or
 * event-loop pressure (`@fastify/under-pressure`). The health routes are never shed, so an
 * operator can still see what is going on.
 *
 * Also the shutdown half of shedding: once `app.close()` starts, Fastify answers new
 * requests 503 (`return503OnClosing`) and in-flight ones finish; their answers carry
 * `Connection: close` so keep-alive sockets end with them instead of holding the close open.
 */
export const loadSheddingPlugin = fp(
  async (app: FastifyInstance, opts: LoadSheddingOptions) => {
    await app.register(underPressure, {
      maxEventLoopDelay: opts.maxEventLoopDelayMs,
      maxHeapUsedBytes: opts.maxHeapUsedBytes,
      maxRssBytes: opts.maxRssBytes,
      sampleInterval: opts.sampleIntervalMs,
      pressureHandler: async (request, _reply, type) => {
        const route = request.routeOptions.url ?? '';
        if (route === '/api/health' || route === '/api/health/detail') return;
        throw TrellisError.of(
          'overloaded',
          { reason: REASONS[type] ?? type },
          { headers: { 'retry-after': '10' } },
        );
      },
    });
    let isClosing = false;
    app.addHook('preClose', async () => {
      isClosing = true;
    });
    // A callback hook: it runs on every answer, and an async one would cost each a promise.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (isClosing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'trellis-load-shedding' },
);
