import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../test/helpers/test-platform';

/**
 * Which `/api` routes need `X-Site-Id` (docs/api-spec.md §5.3), stated as data: every route is
 * site-scoped except these prefixes (a prefix matches itself and everything below it).
 */
const PLATFORM_PREFIXES = [
  '/api/auth',
  '/api/access',
  '/api/health',
  '/api/metrics',
  '/api/sites',
  '/api/leads',
  '/api/bugs',
  // The caller's own inbox, across their sites (docs/events.md).
  '/api/notifications',
  '/api/openapi.json',
];
/** Site-scoped exceptions inside the platform prefixes. */
const SITE_PREFIXES = [
  '/api/auth/users',
  '/api/auth/api-keys',
  '/api/access/site-users',
  '/api/access/grant',
  '/api/access/users',
  '/api/access/invitations',
];

/**
 * Site-scoped routes under a platform prefix, by method: forms post leads without `X-Site-Id`
 * (the spec's "`/api/leads` needs no `X-Site-Id`"), and the members who read them name the site.
 */
const SITE_ROUTES = new Set(['GET /api/leads', 'HEAD /api/leads', 'DELETE /api/leads/:id']);

function under(url: string, prefix: string): boolean {
  return url === prefix || url.startsWith(`${prefix}/`);
}

function expectedScope(method: string, url: string): 'site' | 'none' {
  if (SITE_ROUTES.has(`${method} ${url}`)) return 'site';
  if (SITE_PREFIXES.some((prefix) => under(url, prefix))) return 'site';
  return PLATFORM_PREFIXES.some((prefix) => under(url, prefix)) ? 'none' : 'site';
}

describe('route site scope', () => {
  let platform: TestPlatform;
  let unscopedRouteError: unknown;
  beforeAll(async () => {
    platform = await startTestPlatform({
      beforeReady: (app) => {
        try {
          app.get('/api/forgot-scope', { config: { permission: 'site:read' } }, async () => ({}));
        } catch (error) {
          unscopedRouteError = error;
        }
      },
    });
  });
  afterAll(async () => {
    await platform.close();
  });

  it('is declared on every /api route, as the spec assigns it', () => {
    const api = platform.app.routeTable.filter((route) => route.url.startsWith('/api/'));
    expect(api.length).toBeGreaterThan(50);
    const wrong = api
      .filter((route) => route.config.siteScope !== expectedScope(route.method, route.url))
      .map((route) => `${route.method} ${route.url}: ${route.config.siteScope ?? 'undeclared'}`);
    expect(wrong).toEqual([]);
  });

  it('refuses to register an /api route that declares no scope', () => {
    expect(String(unscopedRouteError)).toMatch(/GET \/api\/forgot-scope declares no config.siteScope/);
    expect(platform.app.routeTable.some((route) => route.url === '/api/forgot-scope')).toBe(false);
  });
});
