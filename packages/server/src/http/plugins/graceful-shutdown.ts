import type { Socket } from 'node:net';
import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How long {@link FastifyInstance.drain} waits for kept-alive sockets to send once more. */
const DEFAULT_IDLE_GRACE_MS = 1000;

/** What a drain left behind when it ended. */
export interface DrainOutcome {
  /** requests still running at the deadline (0 when every one finished) */
  inFlight: number;
  /** client sockets still open (idle kept-alive ones, closed by `close()`) */
  openSockets: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The first half of a graceful shutdown (SIGTERM), before `close()`. From now on every new
     * request is answered 503 `shutting_down` with `Connection: close`, also on kept-alive
     * sockets (whose client gets an answer instead of a reset connection, so it knows its
     * request did nothing), and requests in flight finish, their answers also with
     * `Connection: close`. Resolves once no request is in flight and either no client socket
     * is left or no request arrived or ended for `idleGraceMs`; or at `deadline` (epoch ms)
     * whatever runs. `close()` then ends the idle sockets left and the resources.
     */
    drain(options: { deadline: number; idleGraceMs?: number }): Promise<DrainOutcome>;
  }
}

/**
 * Graceful shutdown: decorates the app with {@link FastifyInstance.drain}. Register it before
 * the plugins whose hooks do work (CORS, rate limiting, auth), so a request arriving while
 * the server drains costs nothing but its 503.
 */
export const gracefulShutdownPlugin = fp(
  async (app: FastifyInstance) => {
    let isDraining = false;
    let inFlight = 0;
    /** when a request last arrived or ended (the drain waits for the sockets to go quiet) */
    let lastActivity = 0;
    const sockets = new Set<Socket>();
    app.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    const release = () => {
      inFlight -= 1;
      lastActivity = performance.now();
    };
    // A callback hook, first of all: it runs on every request.
    app.addHook('onRequest', (_request, reply, done) => {
      if (isDraining) {
        lastActivity = performance.now();
        done(TrellisError.of('shutting_down', {}, { headers: { connection: 'close', 'retry-after': '5' } }));
        return;
      }
      inFlight += 1;
      // A response emits 'close' once, after it finished or when its connection ended first
      // (Node guards it with the response's `_closed`): `on` with the one shared listener
      // counts the same as `once` without a wrapper made for every request.
      reply.raw.on('close', release);
      done();
    });
    // Answers given while draining end their socket: the client opens a new one elsewhere.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (isDraining) reply.header('connection', 'close');
      done(null, payload);
    });
    app.decorate('drain', async ({ deadline, idleGraceMs = DEFAULT_IDLE_GRACE_MS }) => {
      isDraining = true;
      lastActivity = performance.now();
      // A socket whose answer just went out with `Connection: close` ends a moment later: the
      // grace counts from the last request that arrived or ended.
      const isQuiet = () =>
        inFlight === 0 && (sockets.size === 0 || performance.now() - lastActivity >= idleGraceMs);
      while (!isQuiet() && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { inFlight, openSockets: sockets.size };
    });
  },
  { name: 'trellis-graceful-shutdown' },
);
