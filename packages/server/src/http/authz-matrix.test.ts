import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, accessByRoute, atLeast } from '../../test/helpers/expected-access';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';
import type { Role } from '../auth/types';

/**
 * The authorization matrix (issue 4, "Done when"): every route the app registers — including
 * routes other modules add later, enumerated from the app's own route table — in each path
 * variant, called as each role on site A, as an admin of another site, with a revoked key and
 * with no credential. No call may answer 2xx unless {@link EXPECTED_ACCESS} allows it, and none
 * may answer 5xx. The expected answers are stated here as data, not worked out from the
 * production permission table, site-scope rules or route declarations under test
 * (test/helpers/expected-access.ts, shared with the reliability suite).
 */

interface Caller {
  name: string;
  key: string | null;
  /** The caller's role on site A (null: none). */
  roleOnA: Role | null;
  platformRole: 'owner' | null;
  /** API keys restricted to one site cannot create sites. */
  restricted: boolean;
  /** A credential that must be refused outright. */
  invalid: boolean;
  /** Sends no X-Site-Id: site-scoped routes must refuse (400 site_required, or 401 for a bad credential). */
  noSiteHeader?: boolean;
}

let tp: TestPlatform;
let siteA: string;
let siteB: string;
const callers: Caller[] = [];

beforeAll(async () => {
  tp = await startTestPlatform({ env: { RATE_LIMIT_MAX: '1000000' } });
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
  for (const role of ['admin', 'editor', 'publisher', 'viewer'] as const) {
    const user = await tp.addUser({ name: role, siteId: siteA, role });
    callers.push({
      name: role,
      key: user.key,
      roleOnA: role,
      platformRole: null,
      restricted: true,
      invalid: false,
    });
  }
  const foreign = await tp.addUser({ name: 'foreign', siteId: siteB, role: 'admin' });
  callers.push({
    name: 'foreign-site admin',
    key: foreign.key,
    roleOnA: null,
    platformRole: null,
    restricted: true,
    invalid: false,
  });

  const minted = await tp.app.inject({
    method: 'POST',
    url: '/api/auth/api-keys',
    headers: { authorization: `Bearer ${tp.ownerKey}`, 'x-site-id': siteA },
    payload: { name: 'to revoke', role: 'admin' },
  });
  expect(minted.statusCode, minted.body).toBe(201);
  const revoked = minted.json() as { id: string; secret: string };
  // Use it once so the cache holds it, then revoke: it must stop working at once.
  const before = await tp.app.inject({
    method: 'GET',
    url: '/api/auth/users',
    headers: { authorization: `Bearer ${revoked.secret}`, 'x-site-id': siteA },
  });
  expect(before.statusCode).toBe(200);
  const del = await tp.app.inject({
    method: 'DELETE',
    url: `/api/auth/api-keys/${revoked.id}`,
    headers: { authorization: `Bearer ${tp.ownerKey}`, 'x-site-id': siteA },
  });
  expect(del.statusCode, del.body).toBe(200);
  callers.push({
    name: 'revoked key',
    key: revoked.secret,
    roleOnA: null,
    platformRole: null,
    restricted: true,
    invalid: true,
  });
  callers.push({
    name: 'no credential',
    key: null,
    roleOnA: null,
    platformRole: null,
    restricted: true,
    invalid: true,
  });
  callers.push({
    name: 'garbage credential',
    key: 'tk_000000000000_not-a-real-key',
    roleOnA: null,
    platformRole: null,
    restricted: true,
    invalid: true,
  });
  // Spec §5.4: the token is checked before the site context, so a bad one is 401 with or without X-Site-Id.
  callers.push({
    name: 'garbage credential without X-Site-Id',
    key: 'tk_000000000000_not-a-real-key',
    roleOnA: null,
    platformRole: null,
    restricted: true,
    invalid: true,
    noSiteHeader: true,
  });
  callers.push({
    name: 'owner without X-Site-Id',
    key: tp.ownerKey,
    roleOnA: 'owner',
    platformRole: 'owner',
    restricted: false,
    invalid: false,
    noSiteHeader: true,
  });
  // The owner goes last: it may delete site A.
  callers.push({
    name: 'owner',
    key: tp.ownerKey,
    roleOnA: 'owner',
    platformRole: 'owner',
    restricted: false,
    invalid: false,
  });
}, 60_000);

afterAll(async () => {
  await tp?.close();
});

/** Every (method, url) of the router, parsed from `printRoutes({commonPrefix: false})`. */
function routesFromPrintout(text: string): Array<{ method: string; url: string }> {
  const found: Array<{ method: string; url: string }> = [];
  const stack: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^([│ ]*)(?:├── |└── )(.+?)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const url = (depth > 0 ? (stack[depth - 1] ?? '') : '') + (match[2] ?? '');
    stack[depth] = url;
    stack.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) found.push({ method, url });
  }
  return found;
}

/** Each way of reading a printed url whose parameter nodes name several parameters (`:a|:b`). */
function spellings(url: string): string[] {
  return url
    .split('/')
    .reduce<string[]>(
      (prefixes, segment, index) =>
        prefixes.flatMap((prefix) =>
          segment.split('|').map((part) => (index === 0 ? part : `${prefix}/${part}`)),
        ),
      [''],
    );
}

/** A concrete path for a route pattern: site params name site A, others a harmless value. */
function concretePath(url: string, siteParam: string | undefined): string {
  return url
    .replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_whole, name: string) =>
      name === siteParam ? encodeURIComponent(siteA) : 'matrix-probe',
    )
    .replace(/\*/g, 'matrix-probe.txt');
}

/** The path variants every route is tried in. `matches` says whether the router maps it to the same route. */
function variants(path: string): Array<{ kind: string; path: string; matches: boolean }> {
  const firstLetter = path.search(/[a-z]/);
  const encoded =
    firstLetter >= 0
      ? `${path.slice(0, firstLetter)}%${path.charCodeAt(firstLetter).toString(16)}${path.slice(firstLetter + 1)}`
      : path;
  const lastSegment = path.lastIndexOf('/') + 1;
  const encodedLast =
    lastSegment > 0 && lastSegment < path.length
      ? `${path.slice(0, lastSegment)}%${path.charCodeAt(lastSegment).toString(16).toUpperCase()}${path.slice(lastSegment + 1)}`
      : path;
  return [
    { kind: 'plain', path, matches: true },
    { kind: 'trailing slash', path: path.endsWith('/') ? path : `${path}/`, matches: true },
    { kind: 'doubled slash', path: path.replace(/^\/([^/]+)\//, '//$1//'), matches: true },
    { kind: 'upper case', path: path.toUpperCase(), matches: false },
    { kind: 'mixed case', path: path.replace(/^\/api\//, '/Api/'), matches: false },
    { kind: 'percent-encoded first letter', path: encoded, matches: true },
    { kind: 'percent-encoded last segment', path: encodedLast, matches: true },
  ];
}

function mayAnswer2xx(caller: Caller, access: Access): boolean {
  switch (access.kind) {
    case 'public':
      return true;
    case 'signed-in':
      return !caller.invalid && (!access.unrestrictedOnly || !caller.restricted);
    case 'site':
      if (caller.invalid || (caller.noSiteHeader && access.param === null)) return false;
      return caller.roleOnA !== null && atLeast(caller.roleOnA, access.min);
    case 'platform':
      return !caller.invalid && caller.platformRole !== null && atLeast(caller.platformRole, access.min);
  }
}

describe('authorization matrix', () => {
  it('finds no unexpected 2xx and no 5xx on any route, variant and caller', async () => {
    const routes: Array<{ method: string; url: string }> = tp.app.routeTable
      // CORS's catch-all preflight is not a route of its own; named OPTIONS routes are.
      .filter((route) => route.method !== 'OPTIONS' || route.url !== '*')
      .map(({ method, url }) => ({ method, url }));
    // Every route the router knows is walked: the ones registered after the auth plugin are in
    // its route table; the few registered before it must be public.
    const known = new Set(routes.map((route) => `${route.method} ${route.url}`));
    for (const { method, url } of routesFromPrintout(tp.app.printRoutes({ commonPrefix: false }))) {
      if (known.has(`${method} ${url}`) || method === 'OPTIONS') continue;
      // Routes whose parameters at one place have different names (`/api/workflows/:name` and
      // `/api/workflows/:vvId/state`) print as one node `:name|:vvId`.
      if (spellings(url).some((spelled) => known.has(`${method} ${spelled}`))) continue;
      // printRoutes shows a wildcard route's last node without its static prefix.
      if (url.endsWith('*') && routes.some((r) => r.method === method && r.url.endsWith('*'))) continue;
      expect(
        accessByRoute.get(`${method} ${url}`)?.kind,
        `${method} ${url} is registered before the auth plugin`,
      ).toBe('public');
      routes.push({ method, url });
      known.add(`${method} ${url}`);
    }
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.some((route) => route.url === '/api/openapi.json')).toBe(true);
    const unlisted = routes.map((r) => `${r.method} ${r.url}`).filter((route) => !accessByRoute.has(route));
    expect(unlisted, 'routes missing from EXPECTED_ACCESS').toEqual([]);
    const stale = [...accessByRoute.keys()].filter((route) => !known.has(route));
    expect(stale, 'EXPECTED_ACCESS lists routes the app does not register').toEqual([]);
    const problems: string[] = [];
    let calls = 0;
    for (const caller of callers) {
      for (const route of routes) {
        const access = accessByRoute.get(`${route.method} ${route.url}`)!;
        const base = concretePath(
          route.url,
          access.kind === 'site' ? (access.param ?? undefined) : undefined,
        );
        for (const variant of variants(base)) {
          const headers: Record<string, string> = caller.noSiteHeader ? {} : { 'x-site-id': siteA };
          if (caller.key) headers.authorization = `Bearer ${caller.key}`;
          const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
          const res = await tp.app.inject({
            method: route.method as 'GET',
            url: variant.path,
            headers,
            ...(hasBody ? { payload: {} } : {}),
          });
          calls += 1;
          const where = `${caller.name} ${route.method} ${variant.path} (${variant.kind} of ${route.url})`;
          if (res.statusCode >= 500) problems.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          const allowed = variant.matches && mayAnswer2xx(caller, access);
          if (!allowed && res.statusCode < 300) problems.push(`${where}: unexpected ${res.statusCode}`);
          if (variant.matches && access.kind !== 'public' && caller.invalid && res.statusCode !== 401) {
            problems.push(`${where}: expected 401, got ${res.statusCode}`);
          }
          if (
            variant.matches &&
            caller.name === 'foreign-site admin' &&
            access.kind === 'site' &&
            res.statusCode !== 403
          ) {
            problems.push(`${where}: expected 403 for a foreign site, got ${res.statusCode}`);
          }
        }
      }
    }
    expect(problems, problems.slice(0, 40).join('\n')).toEqual([]);
    expect(calls).toBeGreaterThan(routes.length * callers.length);
  }, 600_000);

  it('has every non-public route declare what it needs, except the few open to any signed-in user', () => {
    const openToSignedIn = new Set([
      'GET /api/sites',
      'HEAD /api/sites',
      'POST /api/sites',
      'GET /api/access/my-sites',
      'HEAD /api/access/my-sites',
      // Redeemed with the invitation's token, signed in or not.
      'POST /api/auth/invitations/accept',
      // The caller's own inbox.
      'GET /api/notifications',
      'HEAD /api/notifications',
      'GET /api/notifications/unread-count',
      'HEAD /api/notifications/unread-count',
      'POST /api/notifications/:id/read',
      'POST /api/notifications/read-all',
      // Any signed-in caller may report a problem (docs/bugs.md).
      'POST /api/bugs',
    ]);
    const undeclared = tp.app.routeTable
      .filter((route) => !route.config.public && !route.config.permission && !route.config.siteParam)
      .map((route) => `${route.method} ${route.url}`)
      .filter((route) => !openToSignedIn.has(route));
    expect(undeclared).toEqual([]);
  });

  it('answers 400 site_required on a site-scoped route without X-Site-Id', async () => {
    const res = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: { authorization: `Bearer ${tp.ownerKey}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('site_required');
  });

  it('checks the credential before the site context: a bad one without X-Site-Id is 401, not 400', async () => {
    for (const authorization of ['Bearer tk_000000000000_not-a-real-key', 'Bearer not.a.jwt', 'Basic abc']) {
      const res = await tp.app.inject({ method: 'GET', url: '/api/auth/users', headers: { authorization } });
      expect(res.statusCode, authorization).toBe(401);
    }
    const none = await tp.app.inject({ method: 'GET', url: '/api/auth/users' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthenticated');
    // A valid key without the header is still 400 site_required, also when its access is cached.
    for (let i = 0; i < 2; i++) {
      const res = await tp.app.inject({
        method: 'GET',
        url: '/api/types',
        headers: { authorization: `Bearer ${callers[0]?.key}` },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('site_required');
    }
  });

  it('answers 403 for an unknown site', async () => {
    const res = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: { authorization: `Bearer ${tp.ownerKey}`, 'x-site-id': 'site:does-not-exist' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('keeps site B reachable for its own admin (the matrix is not vacuous)', async () => {
    const foreign = callers.find((c) => c.name === 'foreign-site admin');
    const res = await tp.app.inject({
      method: 'GET',
      url: '/api/auth/users',
      headers: { authorization: `Bearer ${foreign?.key}`, 'x-site-id': siteB },
    });
    expect(res.statusCode).toBe(200);
  });
});
