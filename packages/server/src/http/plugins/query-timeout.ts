import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Resolves like `promise`, or rejects with 504 `query_timeout` once `ms` have passed. The
 * engine call itself is not interrupted (its result is dropped), so use it around reads and
 * around writes that are safe to finish late.
 */
export async function withQueryTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(TrellisError.of('query_timeout', { timeoutMs: ms })), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
    // A late rejection of the abandoned query must not become an unhandled rejection.
    promise.catch(() => undefined);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Bounds a query by `MAX_QUERY_TIMEOUT_MS` (504 `query_timeout` past it). Routes wrap
     * potentially long engine work: `await app.withQueryTimeout(graph.findNodes(q))`.
     */
    withQueryTimeout<T>(promise: Promise<T>): Promise<T>;
  }
}

/** Decorates the app with {@link withQueryTimeout} bound to `MAX_QUERY_TIMEOUT_MS`. */
export const queryTimeoutPlugin = fp(
  async (app: FastifyInstance, opts: { timeoutMs: number }) => {
    app.decorate('withQueryTimeout', <T>(promise: Promise<T>) => withQueryTimeout(promise, opts.timeoutMs));
  },
  { name: 'trellis-query-timeout' },
);
