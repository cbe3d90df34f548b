import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';
import type { Role } from '../auth/types';

/**
 * The authorization matrix (issue 4, "Done when"): every route the app registers — including
 * routes other modules add later, enumerated from the app's own route table — in each path
 * variant, called as each role on site A, as an admin of another site, with a revoked key and
 * with no credential. No call may answer 2xx unless {@link EXPECTED_ACCESS} allows it, and none
 * may answer 5xx. The expected answers are stated here as data, not worked out from the
 * production permission table, site-scope rules or route declarations under test.
 */

/**
 * Who may get a 2xx from each route (`METHOD[,METHOD] pattern`), at least:
 * - `public`: anyone, with or without a credential;
 * - `signed-in`: any valid credential; `signed-in, unrestricted`: one not restricted to a site;
 * - `site <role>`: that role (or higher) on the site named by `X-Site-Id`;
 * - `site(:param) <role>`: that role (or higher) on the site named by the path parameter;
 * - `platform <role>`: that platform role (or higher).
 * Every registered route must be listed, and every listed route registered.
 */
const EXPECTED_ACCESS: Record<string, string> = {
  'GET,HEAD /api/health': 'public',
  'GET,HEAD /api/health/detail': 'public',
  'GET,HEAD /api/metrics/apikey-cache': 'public',
  'GET,HEAD /api/maintenance/engine/procedures': 'site admin',
  'GET,HEAD /api/audit/verify': 'site viewer',
  'POST /api/audit/checklist': 'site admin',
  'GET,HEAD /api/audit': 'site admin',
  'GET,HEAD /api/sites': 'signed-in',
  'POST /api/sites': 'signed-in, unrestricted',
  'GET,HEAD /api/sites/:id': 'site(:id) viewer',
  'PUT /api/sites/:id': 'site(:id) admin',
  'DELETE /api/sites/:id': 'site(:id) owner',
  'GET,HEAD /api/access/my-sites': 'signed-in',
  'GET,HEAD /api/access/site-users': 'site admin',
  'POST /api/access/grant': 'site admin',
  'GET,HEAD /api/access/users': 'site admin',
  'GET,HEAD /api/access/invitations': 'site admin',
  'POST /api/access/invitations': 'site admin',
  'DELETE /api/access/invitations/:id': 'site admin',
  // The token in the body is the credential; an Authorization header is optional (checked when sent).
  'POST /api/auth/invitations/accept': 'public',
  'GET,HEAD /api/auth/users': 'site admin',
  'PUT /api/auth/users/:id/role': 'site admin',
  'DELETE /api/auth/users/:id': 'site admin',
  'GET,HEAD /api/auth/api-keys': 'site admin',
  'POST /api/auth/api-keys': 'site admin',
  'DELETE /api/auth/api-keys/:id': 'site admin',
  'GET,HEAD /api/types': 'site viewer',
  'POST /api/types': 'site editor',
  'GET,HEAD /api/types/:name': 'site viewer',
  'PATCH /api/types/:name': 'site editor',
  'DELETE /api/types/:name': 'site editor',
  'GET,HEAD /api/content/:type': 'site viewer',
  'POST /api/content/:type': 'site editor',
  'GET,HEAD /api/content/:type/:id': 'site viewer',
  'PATCH /api/content/:type/:id': 'site editor',
  'DELETE /api/content/:type/:id': 'site editor',
  'GET,HEAD /api/content/:type/:id/versions': 'site viewer',
  'GET,HEAD /api/content/:type/:id/versions/:version': 'site viewer',
  'POST /api/content/:type/:id/blocks': 'site editor',
  'DELETE /api/content/:type/:id/blocks/:bid': 'site editor',
  'POST /api/content/:type/:id/publish': 'site publisher',
  'POST /api/content/:type/:id/unpublish': 'site publisher',
  'POST /api/publish': 'site publisher',
  'POST /api/unpublish': 'site publisher',
  'POST /api/import/json': 'site editor',
  'POST /api/import/edges': 'site editor',
  'POST /api/import/edges/remove': 'site editor',
  'POST /api/maintenance/embeddings/materialize': 'site admin',
  'GET,HEAD /api/templates': 'site viewer',
  'POST /api/templates': 'site editor',
  'GET,HEAD /api/templates/:name': 'site viewer',
  'GET,HEAD /api/templates/:name/versions': 'site viewer',
  'PUT /api/templates/:name': 'site editor',
  'DELETE /api/templates/:name': 'site editor',
  'GET,HEAD /api/transforms': 'site viewer',
  'GET,HEAD /api/transforms/:id': 'site viewer',
  'POST /api/transforms': 'site editor',
  'PATCH /api/transforms/:id': 'site editor',
  'PUT /api/transforms/:id': 'site editor',
  'DELETE /api/transforms/:id': 'site editor',
  'GET,HEAD /api/routes': 'site viewer',
  'GET,HEAD /api/routes/:slug': 'site viewer',
  'POST /api/routes': 'site editor',
  'PATCH /api/routes/:slug': 'site editor',
  'PUT /api/routes/:slug': 'site editor',
  'DELETE /api/routes/:slug': 'site editor',
  'GET,HEAD /api/views': 'site viewer',
  'GET,HEAD /api/views/:name': 'site viewer',
  'POST /api/views': 'site editor',
  'PATCH /api/views/:name': 'site editor',
  'PUT /api/views/:name': 'site editor',
  'DELETE /api/views/:name': 'site editor',
  'GET,HEAD /api/scripts': 'site viewer',
  'GET,HEAD /api/scripts/:name': 'site viewer',
  'POST /api/scripts': 'site editor',
  'PATCH /api/scripts/:name': 'site editor',
  'PUT /api/scripts/:name': 'site editor',
  'DELETE /api/scripts/:name': 'site editor',
  'GET,HEAD /api/block-types': 'site viewer',
  'GET,HEAD /api/block-types/:name': 'site viewer',
  'POST /api/block-types': 'site editor',
  'PATCH /api/block-types/:name': 'site editor',
  'PUT /api/block-types/:name': 'site editor',
  'DELETE /api/block-types/:name': 'site editor',
  'GET,HEAD /api/widgets': 'site viewer',
  'GET,HEAD /api/widgets/:name': 'site viewer',
  'POST /api/widgets': 'site editor',
  'PATCH /api/widgets/:name': 'site editor',
  'PUT /api/widgets/:name': 'site editor',
  'DELETE /api/widgets/:name': 'site editor',
  'GET,HEAD /api/page-kits': 'site viewer',
  'GET,HEAD /api/page-kits/:id': 'site viewer',
  'POST /api/page-kits': 'site editor',
  'PUT /api/page-kits/:id': 'site editor',
  'DELETE /api/page-kits/:id': 'site editor',
  'GET,HEAD /api/views/:name/seo': 'site viewer',
  'PUT /api/views/:name/seo': 'site editor',
  'POST /api/build': 'site publisher',
  'GET,HEAD /api/build/status/:buildId': 'site viewer',
  'GET,HEAD /api/build/last': 'site viewer',
  'GET,HEAD /api/build/history': 'site viewer',
  'POST /api/build/rollback/:buildId': 'site publisher',
  'GET,HEAD /api/export': 'site viewer',
  'GET,HEAD /sites/:slug/:env': 'public',
  'GET,HEAD /sites/:slug/:env/*': 'public',
  'GET,HEAD /previews/:slug/:buildId': 'public',
  'GET,HEAD /previews/:slug/:buildId/*': 'public',
  'GET,HEAD /api/releases/environments': 'site viewer',
  'PUT /api/releases/environments/:id': 'site admin',
  'DELETE /api/releases/environments/:id': 'site admin',
  'GET,HEAD /api/releases': 'site viewer',
  'POST /api/releases': 'site publisher',
  'GET,HEAD /api/releases/deployments': 'site viewer',
  'GET,HEAD /api/releases/queue': 'site viewer',
  'GET,HEAD /api/releases/replay': 'site viewer',
  'GET,HEAD /api/releases/live': 'site viewer',
  'GET,HEAD /api/releases/deployments/:id': 'site viewer',
  'POST /api/releases/drip-preview': 'site publisher',
  'POST /api/releases/drip-schedule': 'site publisher',
  'POST /api/releases/deployments/:id/rollback': 'site publisher',
  'POST /api/releases/deployments/:id/retry': 'site publisher',
  'GET,HEAD /api/releases/:id': 'site viewer',
  'POST /api/releases/:id/includes': 'site publisher',
  'POST /api/releases/:id/transition': 'site publisher',
  'POST /api/releases/:id/deploy': 'site publisher',
  'DELETE /api/releases/:id': 'site publisher',
  'POST /api/media/upload': 'site editor',
  'GET,HEAD /api/media': 'site viewer',
  'DELETE /api/media/:id': 'site editor',
  'GET,HEAD /api/media/stock': 'site viewer',
  'GET,HEAD /media/assets/:sha.:ext': 'public',
  'GET,HEAD /api/openapi.json': 'public',
};

/** Roles from lowest to highest; each holds everything the roles below it hold. */
const ROLES_LOW_TO_HIGH: readonly Role[] = ['viewer', 'publisher', 'editor', 'admin', 'owner'];

type Access =
  | { kind: 'public' }
  | { kind: 'signed-in'; unrestrictedOnly: boolean }
  | { kind: 'site'; param: string | null; min: Role }
  | { kind: 'platform'; min: Role };

/** EXPECTED_ACCESS by `METHOD pattern`, parsed. */
const accessByRoute = new Map<string, Access>(
  Object.entries(EXPECTED_ACCESS).flatMap(([key, text]) => {
    const [methods = '', url = ''] = key.split(' ');
    return methods.split(',').map((method) => [`${method} ${url}`, parseAccess(text)] as const);
  }),
);

function parseAccess(text: string): Access {
  if (text === 'public') return { kind: 'public' };
  if (text === 'signed-in') return { kind: 'signed-in', unrestrictedOnly: false };
  if (text === 'signed-in, unrestricted') return { kind: 'signed-in', unrestrictedOnly: true };
  const match = /^(site|platform)(?:\(:(\w+)\))? (\w+)$/.exec(text);
  const min = match?.[3] as Role | undefined;
  if (!match || !min || !ROLES_LOW_TO_HIGH.includes(min)) throw new Error(`unreadable access: ${text}`);
  return match[1] === 'site' ? { kind: 'site', param: match[2] ?? null, min } : { kind: 'platform', min };
}

function atLeast(role: Role, min: Role): boolean {
  return ROLES_LOW_TO_HIGH.indexOf(role) >= ROLES_LOW_TO_HIGH.indexOf(min);
}

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
      .filter((route) => route.method !== 'OPTIONS')
      .map(({ method, url }) => ({ method, url }));
    // Every route the router knows is walked: the ones registered after the auth plugin are in
    // its route table; the few registered before it must be public.
    const known = new Set(routes.map((route) => `${route.method} ${route.url}`));
    for (const { method, url } of routesFromPrintout(tp.app.printRoutes({ commonPrefix: false }))) {
      if (known.has(`${method} ${url}`) || method === 'OPTIONS') continue;
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
