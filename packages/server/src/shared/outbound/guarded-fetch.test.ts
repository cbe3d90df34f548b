import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, type GuardedFetchOptions, OutboundRequestError } from './guarded-fetch';
import { type OutboundAllowEntry, parseAllowEntry } from './outbound-policy';

/** A listener that counts every TCP connection made to it (the canary must see none). */
interface Listener {
  server: Server;
  port: number;
  connections: number;
  requests: Array<{ url: string; headers: Record<string, string | string[] | undefined> }>;
}

async function listen(
  host: string,
  handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void,
  port = 0,
): Promise<Listener> {
  const server = createServer((req, res) => {
    listener.requests.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  const listener: Listener = { server, port: 0, connections: 0, requests: [] };
  server.on('connection', () => {
    listener.connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

async function close(listener: Listener | undefined) {
  if (!listener) return;
  listener.server.closeAllConnections();
  await new Promise((resolve) => listener.server.close(resolve));
}

function allow(...entries: string[]): OutboundAllowEntry[] {
  return entries.map((entry) => {
    const parsed = parseAllowEntry(entry);
    if (!parsed) throw new Error(`bad entry ${entry}`);
    return parsed;
  });
}

function guarded(options: Partial<GuardedFetchOptions> & { allow?: OutboundAllowEntry[] } = {}) {
  return createGuardedFetch({
    policy: { allow: options.allow ?? [] },
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.maxRedirects !== undefined ? { maxRedirects: options.maxRedirects } : {}),
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the request was not refused');
}

let canary: Listener;
let canaryV6: Listener | undefined;
const canaryConnections = () => canary.connections + (canaryV6?.connections ?? 0);

beforeAll(async () => {
  canary = await listen('127.0.0.1', (_req, res) => res.end('canary'));
  // The same port on ::1 when the machine has IPv6 loopback: [::1] must not reach it either.
  canaryV6 = await listen('::1', (_req, res) => res.end('canary'), canary.port).catch(() => undefined);
});

afterAll(async () => {
  await close(canary);
  await close(canaryV6);
});

describe('the guarded fetcher refuses internal destinations in any encoding', () => {
  const encodings = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://017700000001:${port}/`,
    `http://0x7f.0.0.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://127.1:${port}/`,
    `http://127.0.0.1.:${port}/`,
    `http://127.0.0.%31:${port}/`,
    `http://１２７.０.０.１:${port}/`,
    `https://127.0.0.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`,
    `http://[64:ff9b::127.0.0.1]:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://localhost:${port}/`,
  ];

  it('makes no connection to a canary on loopback, whatever the URL says, and says why', async () => {
    const fetch = guarded();
    for (const url of encodings(canary.port)) {
      const error = await failure(fetch(url));
      expect(error, url).toBeInstanceOf(OutboundRequestError);
      expect((error as OutboundRequestError).code, url).toBe('OUTBOUND_REFUSED');
      expect(error.message, url).toMatch(/not a public one.*CMS_OUTBOUND_ALLOW/);
    }
    // A trailing-dot host name may not resolve at all; either way nothing connects.
    await failure(fetch(`http://LOCALHOST.:${canary.port}/`));
    expect(canaryConnections()).toBe(0);
  });

  it('refuses link-local, private, unique-local, CGNAT, multicast, broadcast and reserved ranges before connecting', async () => {
    const fetch = guarded();
    for (const host of [
      '169.254.169.254',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '240.0.0.1',
      '[fd00::1]',
      '[fc00::1]',
      '[fe80::1]',
      '[ff02::1]',
      '[2001:db8::1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:10.0.0.1]',
    ]) {
      const error = await failure(fetch(`http://${host}/latest/meta-data/`));
      expect((error as OutboundRequestError).code, host).toBe('OUTBOUND_REFUSED');
    }
  });

  it('refuses other schemes and URLs with credentials', async () => {
    const fetch = guarded();
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.org/',
      `http://user:pw@127.0.0.1:${canary.port}/`,
    ]) {
      expect(((await failure(fetch(url))) as OutboundRequestError).code, url).toBe('OUTBOUND_BAD_URL');
    }
    expect(canaryConnections()).toBe(0);
  });
});

describe('redirects', () => {
  let redirector: Listener;
  let target = '';
  beforeAll(async () => {
    redirector = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
        return;
      }
      res.writeHead(302, { location: target }).end();
    });
  });
  afterAll(async () => {
    await close(redirector);
  });

  it('checks every hop: an allow-listed server redirecting to the canary reaches nothing', async () => {
    // Only the redirector's port is allowed; the canary listens on another port of the same address.
    const fetch = guarded({ allow: allow(`127.0.0.1:${redirector.port}`) });
    for (const to of [
      `http://127.0.0.1:${canary.port}/`,
      `http://2130706433:${canary.port}/`,
      `http://[::ffff:127.0.0.1]:${canary.port}/`,
      `http://localhost:${canary.port}/`,
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      target = to;
      const before = redirector.requests.length;
      const error = await failure(fetch(`http://127.0.0.1:${redirector.port}/start`));
      expect((error as OutboundRequestError).code, to).toBe('OUTBOUND_REFUSED');
      expect(redirector.requests.length, to).toBe(before + 1);
    }
    expect(canaryConnections()).toBe(0);
  });

  it('answers a redirect itself with redirect: manual, and stops after maxRedirects', async () => {
    const fetch = guarded({ allow: allow(`127.0.0.1:${redirector.port}`), maxRedirects: 3 });
    target = `http://127.0.0.1:${canary.port}/`;
    const manual = await fetch(`http://127.0.0.1:${redirector.port}/start`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe(target);
    const error = await failure(fetch(`http://127.0.0.1:${redirector.port}/loop`));
    expect((error as OutboundRequestError).code).toBe('OUTBOUND_TOO_MANY_REDIRECTS');
    expect(canaryConnections()).toBe(0);
  });

  it('trusts an origin only for itself: a redirect from it to the canary is refused', async () => {
    const fetch = guarded();
    target = `http://127.0.0.1:${canary.port}/`;
    const error = await failure(
      fetch(`http://127.0.0.1:${redirector.port}/start`, {
        trustedOrigins: [`http://127.0.0.1:${redirector.port}`],
      }),
    );
    expect((error as OutboundRequestError).code).toBe('OUTBOUND_REFUSED');
    expect(canaryConnections()).toBe(0);
  });
});

describe('what the operator allows', () => {
  afterEach(() => {
    // The positive controls below do reach the canary: reset its count for the other tests.
    canary.connections = 0;
  });

  it('reaches an allow-listed address (so the canary does count connections)', async () => {
    const byPort = guarded({ allow: allow(`127.0.0.1:${canary.port}`) });
    expect(await (await byPort(`http://2130706433:${canary.port}/`)).text()).toBe('canary');
    const byRange = guarded({ allow: allow('127.0.0.0/8') });
    expect((await byRange(`http://[::ffff:127.0.0.1]:${canary.port}/`)).status).toBe(200);
    const trusted = guarded();
    expect(
      (
        await trusted(`http://127.0.0.1:${canary.port}/x`, {
          trustedOrigins: [`http://127.0.0.1:${canary.port}`],
        })
      ).status,
    ).toBe(200);
    expect(canary.connections).toBe(3);
  });

  it('does not let an allowed port open the others', async () => {
    const fetch = guarded({ allow: allow(`127.0.0.1:${canary.port + 1}`) });
    expect(((await failure(fetch(`http://127.0.0.1:${canary.port}/`))) as OutboundRequestError).code).toBe(
      'OUTBOUND_REFUSED',
    );
    expect(canary.connections).toBe(0);
  });
});

describe('DNS', () => {
  let allowed: Listener | undefined;
  afterAll(async () => {
    await close(allowed);
  });

  it('connects to the address it checked: a host that rebinds to loopback after the check reaches nothing', async () => {
    // The allowed server listens on 127.0.0.2 on the canary's port; only 127.0.0.2 is allowed.
    allowed = await listen('127.0.0.2', (_req, res) => res.end('allowed'), canary.port);
    let lookups = 0;
    const fetch = guarded({
      allow: allow('127.0.0.2'),
      // First answer: the allowed address; any later one: the canary's.
      resolve: async () => {
        lookups += 1;
        return [{ address: lookups === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
      },
    });
    const response = await fetch(`http://rebind.example:${canary.port}/`);
    expect(await response.text()).toBe('allowed');
    expect(lookups).toBe(1);
    expect(canaryConnections()).toBe(0);
    // A host with one public and one loopback address is refused as a whole.
    const mixed = guarded({
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    const error = await failure(mixed(`http://mixed.example:${canary.port}/`));
    expect((error as OutboundRequestError).code).toBe('OUTBOUND_REFUSED');
    expect(error.message).toContain('mixed.example resolves to a loopback address');
    expect(error.message).not.toContain('127.0.0.1');
    expect(canaryConnections()).toBe(0);
  });
});

describe('bounds', () => {
  let server: Listener;
  beforeAll(async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x61);
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
    server = await listen('127.0.0.1', (req, res) => {
      if (req.url === '/big') res.end(big);
      else if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 32; i += 1) res.write(big.subarray(0, 64 * 1024));
        res.end();
      } else if (req.url === '/bomb') res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb);
      else if (req.url === '/gzip')
        res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
      else if (req.url === '/hang') {
        // Never answers: the fetcher's own timeout must end the request.
      } else res.end('small');
    });
  });
  afterAll(async () => {
    await close(server);
  });

  it('stops reading past maxResponseBytes, declared or not, compressed or not', async () => {
    const fetch = guarded({ allow: allow(`127.0.0.1:${server.port}`), maxResponseBytes: 1024 * 1024 });
    for (const path of ['/big', '/chunked', '/bomb']) {
      const error = await failure(fetch(`http://127.0.0.1:${server.port}${path}`));
      expect((error as OutboundRequestError).code, path).toBe('OUTBOUND_RESPONSE_TOO_LARGE');
    }
    expect(await (await fetch(`http://127.0.0.1:${server.port}/gzip`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`http://127.0.0.1:${server.port}/small`)).text()).toBe('small');
  });

  it('gives up after timeoutMs', async () => {
    const fetch = guarded({ allow: allow(`127.0.0.1:${server.port}`), timeoutMs: 200 });
    const error = await failure(fetch(`http://127.0.0.1:${server.port}/hang`));
    expect(error.name).toBe('TimeoutError');
  });
});
