import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiOk, createBlogSite, type ServerProcess, startServer } from './harness';

/**
 * SSRF canary: a site admin points the site's `publicUrl` at a listener on 127.0.0.1 (in every
 * spelling of the address, and behind a redirect), and deploys to prod, whose serve check
 * fetches that URL. The listener must see no connection at all.
 */

let server: ServerProcess;
let canary: Server;
let redirector: Server;
let connections = 0;

function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const listener = createServer(onConnection);
  return new Promise((resolve) =>
    listener.listen(0, '127.0.0.1', () => {
      const address = listener.address();
      resolve({ server: listener, port: typeof address === 'object' && address ? address.port : 0 });
    }),
  );
}

let canaryPort = 0;
let redirectorPort = 0;

beforeAll(async () => {
  const c = await listen((socket) => {
    connections += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
  });
  canary = c.server;
  canaryPort = c.port;
  const r = await listen((socket) => {
    socket.end(
      `HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:${canaryPort}/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
    );
  });
  redirector = r.server;
  redirectorPort = r.port;
  server = await startServer();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  canary?.close();
  redirector?.close();
});

describe('SSRF canary', () => {
  it('never connects to a loopback canary named by a site, in any spelling or behind a redirect', async () => {
    const site = await createBlogSite(server, { slug: 'ssrf' });
    const urls = [
      `http://127.0.0.1:${canaryPort}/`,
      `http://localhost:${canaryPort}/`,
      `http://2130706433:${canaryPort}/`,
      `http://0x7f000001:${canaryPort}/`,
      `http://0177.0.0.1:${canaryPort}/`,
      `http://127.1:${canaryPort}/`,
      `http://[::ffff:127.0.0.1]:${canaryPort}/`,
      `http://[::ffff:7f00:1]:${canaryPort}/`,
      `http://127.0.0.1:${redirectorPort}/`,
    ];
    const accepted: string[] = [];
    for (const publicUrl of urls) {
      const put = await api(server, 'PUT', `/api/sites/${site.id}`, { site: site.id, body: { publicUrl } });
      expect(put.status, put.text).toBeLessThan(500);
      if (put.status !== 200) continue;
      accepted.push(publicUrl);
      await apiOk(server, 'POST', '/api/build?env=prod&mode=full', { site: site.id, expected: 200 });
    }
    console.info(
      `[ssrf] ${accepted.length} of ${urls.length} URLs accepted as publicUrl; canary connections: ${connections}`,
    );
    expect(connections).toBe(0);
  });
});
