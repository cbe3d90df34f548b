import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBlog } from '../../../test/helpers/blog-site';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';

/**
 * Issue 16 item 1: a site admin points the site's `publicUrl` at an internal address — in
 * any encoding, or behind a redirect from a server the operator allowed — and the serve
 * check after a prod build must not connect to it (no port-scan oracle). A canary listener
 * on 127.0.0.1 counts connections; it is never allow-listed.
 */
interface Counted {
  server: Server;
  port: number;
  connections: number;
}

async function counted(handler: Parameters<typeof createServer>[1]): Promise<Counted> {
  const server = createServer(handler);
  const listener: Counted = { server, port: 0, connections: 0 };
  server.on('connection', () => {
    listener.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

async function stop(listener: Counted | undefined) {
  if (!listener) return;
  listener.server.closeAllConnections();
  await new Promise((resolve) => listener.server.close(resolve));
}

let canary: Counted;
let redirector: Counted;
let site: ContentTestSite;

beforeAll(async () => {
  canary = await counted((_req, res) => res.end('canary'));
  redirector = await counted((req, res) => {
    // /to/<url-encoded target>: a 302 there.
    const target = decodeURIComponent((req.url ?? '').replace(/^\/to\//, ''));
    res.writeHead(302, { location: target }).end();
  });
  // The operator allowed the redirector's port only (a stand-in for a public server that redirects).
  site = await createContentTestSite({
    slug: 'blog',
    env: {
      CMS_OUTBOUND_ALLOW: `127.0.0.1:${redirector.port}`,
      STOCK_PROVIDER_URL: `http://127.0.0.1:${redirector.port}/to/${encodeURIComponent(`http://127.0.0.1:${canary.port}/search`)}`,
    },
  });
  await seedBlog(site);
  await site.platform.app.listen({ host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await site?.close();
  await stop(canary);
  await stop(redirector);
});

async function setPublicUrl(publicUrl: string) {
  const res = await site.request({ method: 'PUT', url: `/api/sites/${site.siteId}`, payload: { publicUrl } });
  expect(res.statusCode, res.body).toBe(200);
}

async function buildProd() {
  const res = await site.request({ method: 'POST', url: '/api/build?env=prod', payload: { mode: 'full' } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    deploy: { ok: boolean; serveCheck: { ok: boolean; status: number; error: string; url: string } | null };
  };
}

describe('the serve check of a site publicUrl (SSRF)', () => {
  it('never connects to an internal address, in any encoding, and answers the same refusal for each', async () => {
    const port = canary.port;
    const internal = [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://127.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::1]:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://localhost:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/',
      // An allowed server redirecting to the canary: refused at the second hop.
      `http://127.0.0.1:${redirector.port}/to/${encodeURIComponent(`http://2130706433:${port}/`)}`,
    ];
    for (const publicUrl of internal) {
      await setPublicUrl(publicUrl);
      const { deploy } = await buildProd();
      expect(deploy.serveCheck, publicUrl).toMatchObject({ ok: false, status: 0, url: publicUrl });
      expect(deploy.serveCheck?.error, publicUrl).toMatch(/^refused: .* not a public one/);
      expect(deploy.ok, publicUrl).toBe(false);
    }
    expect(canary.connections).toBe(0);
    expect(redirector.connections).toBe(1);
  }, 120_000);

  it('probes the server’s own live path (trusted: the server built that URL), but not a publicUrl naming it', async () => {
    const { port } = site.platform.app.server.address() as AddressInfo;
    const dev = await site.request({ method: 'POST', url: '/api/build?env=dev', payload: { mode: 'full' } });
    expect(dev.json().deploy.serveCheck).toMatchObject({
      ok: true,
      status: 200,
      url: `http://127.0.0.1:${port}/sites/blog/dev/`,
    });
    await setPublicUrl(`http://127.0.0.1:${port}/sites/blog/dev/`);
    const { deploy } = await buildProd();
    expect(deploy.serveCheck).toMatchObject({
      ok: false,
      status: 0,
      error: expect.stringMatching(/^refused/),
    });
  }, 60_000);
});

describe('the stock provider (operator-configured) redirecting inward', () => {
  it('answers 502 and never reaches the canary', async () => {
    const before = redirector.connections;
    const res = await site.request({ method: 'GET', url: '/api/media/stock?provider=pexels&q=forest' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: 'stock_provider_unavailable' });
    expect(res.json().error).toMatch(/refused/);
    expect(redirector.connections).toBe(before + 1);
    expect(canary.connections).toBe(0);
  });
});
