import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/auth/types';
import { type Access, accessByRoute, atLeast } from '../helpers/expected-access';
import { startTestPlatform, type TestPlatform, type TestUser } from '../helpers/test-platform';

/**
 * Authorization over the wire: every protected route (test/helpers/expected-access.ts, the data
 * of the in-process authorization matrix) called over raw HTTP, in path spellings an HTTP client
 * would have normalized away (dot segments, encoded slashes and dots, matrix parameters,
 * absolute-form request lines) and with header tricks (method override, URL rewrite headers,
 * two X-Site-Id, odd Authorization forms), as a viewer of site A, an admin of site B and no one.
 * Then role escalation: each role of site A tries to raise itself or mint more than it holds.
 * No call may answer 2xx unless the route allows the caller, and none may answer 5xx.
 */

let tp: TestPlatform;
let port: number;
let siteA: string;
let siteB: string;
const users = new Map<string, TestUser>();

beforeAll(async () => {
  tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: '100000000' } });
  const create = async (name: string) => {
    const res = await tp.app.inject({
      method: 'POST',
      url: '/api/sites',
      headers: { authorization: `Bearer ${tp.ownerKey}` },
      payload: { name, starterKit: 'author' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  siteA = await create('Site A');
  siteB = await create('Site B');
  for (const role of ['viewer', 'publisher', 'editor', 'admin'] as const)
    users.set(role, await tp.addUser({ name: role, siteId: siteA, role }));
  users.set('foreign admin', await tp.addUser({ name: 'foreign', siteId: siteB, role: 'admin' }));
  await tp.app.listen({ port: 0, host: '127.0.0.1' });
  const address = tp.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
}, 120_000);

afterAll(async () => {
  await tp?.close();
});

/** Sends one raw HTTP/1.1 request (the request line exactly as given) and returns the status. */
function raw(requestLine: string, headers: string[], body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(30_000, () => socket.destroy(new Error(`timeout: ${requestLine}`)));
    socket.on('connect', () => {
      const lines = headers.map((h) => `${h}\r\n`).join('');
      socket.write(`${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines}\r\n${body}`);
    });
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (match) resolve({ status: Number(match[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) });
      else reject(new Error(`no status for ${requestLine}: ${JSON.stringify(data.slice(0, 200))}`));
    });
  });
}

/** A concrete path of a route pattern: site params name site A, others a harmless value. */
function concretePath(url: string, access: Access): string {
  const siteParam = access.kind === 'site' ? access.param : null;
  return url
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_whole, name: string) =>
      name === siteParam ? encodeURIComponent(siteA) : 'probe',
    )
    .replace(/\*/g, 'probe.txt');
}

/** Spellings of `path` that must reach the same route, or no route. */
function spellings(path: string): string[] {
  const segments = path.split('/');
  const last = segments.length - 1;
  const tail = segments.slice(2).join('/');
  return [
    path,
    `/./${path.slice(1)}`,
    `${segments.slice(0, 2).join('/')}/./${tail}`,
    `${segments.slice(0, 2).join('/')}/x/../${tail}`,
    `${segments.slice(0, 2).join('/')}/%2e/${tail}`,
    `${segments.slice(0, 2).join('/')}/%2E%2E/${segments.slice(1, 2).join('/')}/${tail}`,
    `${path};x=1`,
    `${segments.slice(0, last).join('/')};x=1/${segments[last]}`,
    `${segments.slice(0, 2).join('/')}%2f${tail}`,
    `${path}%00`,
    `${path}/.`,
    `${path}?x-site-id=${encodeURIComponent(siteA)}`,
    path.replace(/\//g, '\\'),
    `http://127.0.0.1${path}`,
  ];
}

interface Caller {
  name: string;
  key: string | null;
  roleOnA: Role | null;
}

function mayAnswer2xx(caller: Caller, access: Access): boolean {
  switch (access.kind) {
    case 'public':
      return true;
    case 'signed-in':
      // The probe's callers are all site-restricted keys.
      return caller.key !== null && !access.unrestrictedOnly;
    case 'site':
      return caller.roleOnA !== null && atLeast(caller.roleOnA, access.min);
    case 'platform':
      return false;
  }
}

describe('authorization over the wire', () => {
  it('answers no unexpected 2xx and no 5xx for any path spelling, header trick or caller', async () => {
    const callers: Caller[] = [
      { name: 'viewer of A', key: users.get('viewer')!.key, roleOnA: 'viewer' },
      { name: 'admin of B', key: users.get('foreign admin')!.key, roleOnA: null },
      { name: 'no one', key: null, roleOnA: null },
    ];
    const routes = tp.app.routeTable
      .filter((route) => route.method !== 'OPTIONS' && route.method !== 'HEAD')
      .map(({ method, url }) => ({ method, url, access: accessByRoute.get(`${method} ${url}`) }));
    const problems: string[] = [];
    let calls = 0;
    // What GET /api/health answers (its fixed part).
    const healthBody = (await raw('GET /api/health HTTP/1.1', [])).body.slice(0, 12);
    expect(healthBody.length).toBeGreaterThan(5);
    for (const { method, url, access } of routes) {
      expect(access, `${method} ${url} is not in test/helpers/expected-access.ts`).toBeDefined();
      if (!access || access.kind === 'public') continue;
      const path = concretePath(url, access);
      for (const caller of callers) {
        const auth = caller.key ? [`Authorization: Bearer ${caller.key}`] : [];
        const site = [`X-Site-Id: ${siteA}`];
        const body =
          method === 'GET' || method === 'DELETE'
            ? []
            : ['Content-Type: application/json', 'Content-Length: 2'];
        const tries: Array<{ line: string; headers: string[]; access?: Access; health?: boolean }> =
          spellings(path).map((spelling) => ({
            line: `${method} ${spelling} HTTP/1.1`,
            headers: [...auth, ...site, ...body],
          }));
        const getAccess = accessByRoute.get(`GET ${url}`);
        const keyOnly = caller.key ? caller.key : 'tk_000000000000_not-a-real-key';
        tries.push(
          // A method override must not turn a GET into the route's method (the GET route's rule applies).
          {
            line: `GET ${path} HTTP/1.1`,
            headers: [...auth, ...site, `X-HTTP-Method-Override: ${method}`],
            access: getAccess ?? { kind: 'platform', min: 'owner' },
          },
          // URL rewrite headers must not route a public URL to the protected one.
          {
            line: `GET /api/health HTTP/1.1`,
            headers: [...auth, ...site, `X-Original-URL: ${path}`, `X-Rewrite-URL: ${path}`],
            health: true,
          },
          // Two sites named: the caller gets no more than on site A alone.
          {
            line: `${method} ${path} HTTP/1.1`,
            headers: [...auth, `X-Site-Id: ${siteB}`, `X-Site-Id: ${siteA}`, ...body],
          },
          {
            line: `${method} ${path} HTTP/1.1`,
            headers: [...auth, `X-Site-Id: ${siteB}, ${siteA}`, ...body],
          },
          // The caller's own key in odd forms: never more than the caller.
          {
            line: `${method} ${path} HTTP/1.1`,
            headers: [...site, ...body, `Authorization: bearer ${keyOnly}`],
          },
          {
            line: `${method} ${path} HTTP/1.1`,
            headers: [
              ...site,
              ...body,
              `Authorization: Basic ${Buffer.from(`x:${keyOnly}`).toString('base64')}`,
            ],
          },
          {
            line: `${method} ${path} HTTP/1.1`,
            headers: [...site, ...body, `Authorization: Bearer  ${keyOnly} `],
          },
          { line: `${method} ${path} HTTP/1.1`, headers: [...site, ...body, `Authorization: ${keyOnly}`] },
        );
        for (const attempt of tries) {
          const payload = attempt.headers.includes('Content-Length: 2') ? '{}' : '';
          const { status, body: answer } = await raw(attempt.line, attempt.headers, payload).catch(() => ({
            status: -1,
            body: '',
          }));
          calls += 1;
          const twoXx = status >= 200 && status < 300;
          const wrong = attempt.health
            ? status !== 200 || !answer.includes(healthBody)
            : twoXx && !mayAnswer2xx(caller, attempt.access ?? access);
          if (status >= 500 || status < 0 || wrong)
            problems.push(
              `${caller.name}: ${attempt.line} [${attempt.headers.filter((h) => !h.startsWith('Authorization')).join('; ')}] → ${status}`,
            );
        }
      }
    }
    console.info(`[authz] ${calls} raw calls over ${routes.length} routes: ${problems.length} problems`);
    expect(problems.slice(0, 20)).toEqual([]);
  });

  it('lets no role of a site raise itself, or mint a key or a membership above its own', async () => {
    const problems: string[] = [];
    const call = async (
      key: string,
      method: 'POST' | 'PUT' | 'DELETE' | 'GET',
      url: string,
      payload?: unknown,
      site = siteA,
    ) => {
      const res = await tp.app.inject({
        method,
        url,
        payload: payload as object,
        headers: { authorization: `Bearer ${key}`, 'x-site-id': site },
      });
      if (res.statusCode >= 500) problems.push(`${method} ${url} → ${res.statusCode}`);
      return res;
    };
    for (const role of ['viewer', 'publisher', 'editor'] as const) {
      const user = users.get(role)!;
      const attempts: Array<[string, { statusCode: number }]> = [
        [
          'mint an admin key',
          await call(user.key, 'POST', '/api/auth/api-keys', { name: 'mine', role: 'admin' }),
        ],
        [
          'grant itself admin',
          await call(user.key, 'POST', '/api/access/grant', { userId: user.userId, role: 'admin' }),
        ],
        [
          'set its own role to admin',
          await call(user.key, 'PUT', `/api/auth/users/${encodeURIComponent(user.userId)}/role`, {
            role: 'admin',
          }),
        ],
        [
          'invite an admin',
          await call(user.key, 'POST', '/api/access/invitations', {
            email: `${role}@evil.test`,
            role: 'admin',
          }),
        ],
        [
          'create a site',
          await call(user.key, 'POST', '/api/sites', { name: `${role}'s own`, starterKit: 'none' }),
        ],
        [
          "change the site's public URL",
          await call(user.key, 'PUT', `/api/sites/${encodeURIComponent(siteA)}`, {
            publicUrl: 'https://evil.test/',
          }),
        ],
        ['read site B', await call(user.key, 'GET', '/api/types', undefined, siteB)],
      ];
      for (const [what, res] of attempts)
        if (res.statusCode < 300) problems.push(`${role} could ${what} (${res.statusCode})`);
      // Still what it was: an editor may not do an admin's work.
      const still = await call(user.key, 'GET', '/api/auth/users');
      if (still.statusCode < 300) problems.push(`${role} reads the site's users after the attempts`);
    }
    // An admin of A: no owner key, no key or membership reaching site B, no owner's role taken away.
    const admin = users.get('admin')!;
    const ownerRole = await call(admin.key, 'POST', '/api/auth/api-keys', { name: 'owner?', role: 'owner' });
    if (ownerRole.statusCode < 300) problems.push(`admin minted an owner key: ${ownerRole.body}`);
    const crossSite = await call(admin.key, 'POST', '/api/auth/api-keys', {
      name: 'both',
      role: 'admin',
      allowedSites: [siteA, siteB],
    });
    if (crossSite.statusCode < 300) {
      const secret = (crossSite.json() as { secret: string }).secret;
      const onB = await call(secret, 'GET', '/api/types', undefined, siteB);
      if (onB.statusCode < 300) problems.push('a key minted by an admin of A works on site B');
    }
    const deleteSite = await call(admin.key, 'DELETE', `/api/sites/${encodeURIComponent(siteA)}`);
    if (deleteSite.statusCode < 300) problems.push('an admin deleted the site (owner only)');
    const foreign = users.get('foreign admin')!;
    const grantOnA = await call(foreign.key, 'POST', '/api/access/grant', {
      userId: foreign.userId,
      role: 'admin',
    });
    if (grantOnA.statusCode < 300) problems.push('an admin of B granted itself admin on A');
    expect(problems).toEqual([]);
  });
});
