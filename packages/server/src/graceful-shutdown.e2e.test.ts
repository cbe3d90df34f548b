import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../test/helpers/keep-alive-client';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process';

// SIGTERM under load (issue 16, item 7): requests in flight finish with their answers, a new
// request on a kept-alive socket gets 503 `shutting_down` with `Connection: close` (never a
// reset socket: the client could not tell whether its write landed), then the process exits 0.
// Runs the built server (`pnpm build`) as a child process.

let server: ServerProcess | undefined;
afterEach(async () => {
  await server?.cleanup();
  server = undefined;
});

describe('SIGTERM', () => {
  it('lets requests in flight finish, answers new ones on kept-alive sockets 503 with Connection: close, then exits 0', async () => {
    server = await startServerProcess();
    const { url } = server;
    const auth = { authorization: `Bearer ${server.ownerKey}` };
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const site = await send(agent, url, {
        method: 'POST',
        path: '/api/sites',
        headers: auth,
        body: JSON.stringify({ name: 'Shutdown', slug: 'shutdown', starterKit: 'none' }),
      });
      expect(site.status, site.body).toBe(201);
      const headers = { ...auth, 'x-site-id': JSON.parse(site.body).id as string };
      const type = await send(agent, url, {
        method: 'POST',
        path: '/api/types',
        headers,
        body: JSON.stringify({
          name: 'note',
          label: 'Note',
          nodeLabel: 'Note',
          keyField: 'slug',
          fields: [
            { name: 'slug', type: 'string', required: true },
            { name: 'body', type: 'text' },
          ],
        }),
      });
      expect(type.status, type.body).toBe(201);
      // eight kept-alive sockets
      const warm = await Promise.all(
        Array.from({ length: 8 }, () => send(agent, url, { method: 'GET', path: '/api/health' })),
      );
      expect(warm.map((answer) => answer.status)).toEqual(Array(8).fill(200));

      // four slow writes in flight (each import takes a while; they queue on the graph's writer)
      const imports = Array.from({ length: 4 }, (_, n) => {
        const records = Array.from({ length: 5000 }, (_, i) => ({
          slug: `n${n}-${i}`,
          body: 'lorem ipsum dolor sit amet '.repeat(4),
        }));
        return send(agent, url, {
          method: 'POST',
          path: '/api/import/json',
          headers,
          body: JSON.stringify({ typeName: 'note', records, batchSize: 250 }),
        });
      });
      // the server has taken all four (it logs each request it routes)
      for (let seen = 0; seen < 4; ) {
        await server.waitForLog(/"incoming request"/, 60_000);
        seen =
          server
            .log()
            .match(
              /"url":"\/api\/import\/json"[^\n]*"incoming request"|"incoming request"[^\n]*"url":"\/api\/import\/json"/g,
            )?.length ?? 0;
        if (seen < 4) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      server.child.kill('SIGTERM');
      await server.waitForLog(/shutting down/);

      // new requests on the four idle kept-alive sockets
      const late = await Promise.all(
        Array.from({ length: 4 }, () => send(agent, url, { method: 'GET', path: '/api/types', headers })),
      );
      const done = await Promise.all(imports);
      const code = await server.exited;

      for (const answer of done) {
        expect(answer.error).toBeNull();
        expect(answer.status, answer.body.slice(0, 300)).toBe(200);
        expect(JSON.parse(answer.body)).toMatchObject({ ok: true, created: 5000 });
        // answered while draining: the socket ends with it
        expect(answer.headers.connection).toBe('close');
      }
      for (const answer of late) {
        expect(answer.error).toBeNull();
        expect(answer.reusedSocket).toBe(true);
        expect(answer.status).toBe(503);
        expect(answer.headers.connection).toBe('close');
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'shutting_down' });
      }
      expect(code).toBe(0);
    } finally {
      agent.destroy();
    }
  });
});
