/**
 * Whether a route needs `X-Site-Id` (docs/api-spec.md §5.3), decided from the route's registered
 * pattern (never the raw URL, so `/API/…`, `//api/…` or percent-encoded variants cannot
 * slip past). Exempt: `/api/auth/*` except `/api/auth/users*` and `/api/auth/api-keys*`;
 * `/api/health*`; `/api/metrics/*`; `/api/access/*` except `site-users` and `grant` (admin
 * only, site-scoped); `/api/sites*`; `/api/leads`; `/api/openapi.json`; everything outside
 * `/api/` (e.g. `/media/assets/*`).
 */
export function isSiteScoped(routePattern: string): boolean {
  const path = routePattern.replace(/\/+$/, '');
  if (!path.startsWith('/api/')) return false;
  if (startsWithSegment(path, '/api/auth')) {
    return startsWithSegment(path, '/api/auth/users') || startsWithSegment(path, '/api/auth/api-keys');
  }
  if (startsWithSegment(path, '/api/access')) {
    return startsWithSegment(path, '/api/access/site-users') || startsWithSegment(path, '/api/access/grant');
  }
  if (path === '/api/health' || startsWithSegment(path, '/api/health')) return false;
  if (startsWithSegment(path, '/api/metrics')) return false;
  if (startsWithSegment(path, '/api/sites')) return false;
  if (path === '/api/leads' || path === '/api/openapi.json') return false;
  return true;
}

function startsWithSegment(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
