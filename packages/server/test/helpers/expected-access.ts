import type { Role } from '../../src/auth/types';

/*
 * The authorization expectations of the server's routes, stated as data (not worked out from
 * the production permission table, site-scope rules or route declarations under test). Shared
 * by the authorization matrix (src/http/authz-matrix.test.ts) and the reliability suite's
 * authorization probe (test/reliability/authz.reliability.test.ts).
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
export const EXPECTED_ACCESS: Record<string, string> = {
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
  'GET,HEAD /api/queries': 'site viewer',
  'GET,HEAD /api/queries/:name': 'site viewer',
  'POST /api/queries': 'site editor',
  'PATCH /api/queries/:name': 'site editor',
  'PUT /api/queries/:name': 'site editor',
  'DELETE /api/queries/:name': 'site editor',
  'POST /api/queries/:name/run': 'site viewer',
  'GET,HEAD /api/scripts': 'site viewer',
  'GET,HEAD /api/scripts/:name': 'site viewer',
  'POST /api/scripts': 'site editor',
  'PATCH /api/scripts/:name': 'site editor',
  'PUT /api/scripts/:name': 'site editor',
  'DELETE /api/scripts/:name': 'site editor',
  'POST /api/scripts/:name/test': 'site editor',
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
  'GET,HEAD /api/locales': 'site viewer',
  'GET,HEAD /api/locales/:code': 'site viewer',
  'POST /api/locales': 'site editor',
  'PATCH /api/locales/:code': 'site editor',
  'PUT /api/locales/:code': 'site editor',
  'DELETE /api/locales/:code': 'site editor',
  'GET,HEAD /api/locales/:code/translations': 'site viewer',
  'PUT /api/locales/:code/translations': 'site editor',
  'GET,HEAD /api/workflows': 'site viewer',
  'GET,HEAD /api/workflows/:name': 'site viewer',
  'POST /api/workflows': 'site admin',
  'PATCH /api/workflows/:name': 'site admin',
  'PUT /api/workflows/:name': 'site admin',
  'DELETE /api/workflows/:name': 'site admin',
  'GET,HEAD /api/workflows/:vvId/state': 'site viewer',
  'POST /api/workflows/:vvId/transition': 'site publisher',
  'GET,HEAD /api/views/:name/seo': 'site viewer',
  'PUT /api/views/:name/seo': 'site editor',
  'POST /api/build': 'site publisher',
  'GET,HEAD /api/build/status/:buildId': 'site viewer',
  'GET,HEAD /api/build/last': 'site viewer',
  'GET,HEAD /api/build/history': 'site viewer',
  'POST /api/build/rollback/:buildId': 'site publisher',
  'POST /api/build/prune': 'site publisher',
  'POST /api/build/cancel/:buildId': 'site publisher',
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
  'GET,HEAD /api/webhooks': 'site admin',
  'POST /api/webhooks': 'site admin',
  'GET,HEAD /api/webhooks/:id': 'site admin',
  'PATCH /api/webhooks/:id': 'site admin',
  'DELETE /api/webhooks/:id': 'site admin',
  'GET,HEAD /api/webhooks/:id/deliveries': 'site admin',
  'GET,HEAD /api/webhooks/:id/deliveries/:deliveryId': 'site admin',
  'POST /api/webhooks/:id/deliveries/:deliveryId/redeliver': 'site admin',
  'POST /api/webhooks/:id/test': 'site admin',
  'GET,HEAD /api/notifications': 'signed-in',
  'GET,HEAD /api/notifications/unread-count': 'signed-in',
  'POST /api/notifications/:id/read': 'signed-in',
  'POST /api/notifications/read-all': 'signed-in',
  'POST /api/media/stock/import': 'site editor',
  'POST /api/ai/seo-description': 'site editor',
  'POST /api/ai/alt-text': 'site editor',
  'POST /api/ai/suggest-tags': 'site editor',
  'POST /api/ai/summarize': 'site editor',
  'POST /api/ai/translate': 'site editor',
  'GET,HEAD /media/assets/:sha.:ext': 'public',
  'GET,HEAD /api/openapi.json': 'public',
  // The MCP endpoint: any role reads through it; each tool is checked like the route it calls.
  'POST /api/agent': 'site viewer',
  'GET,HEAD /api/agent': 'site viewer',
  'DELETE /api/agent': 'site viewer',
  // Forms on published sites post leads without a credential (docs/leads.md).
  'POST /api/leads': 'public',
  'OPTIONS /api/leads': 'public',
  'GET,HEAD /api/leads': 'site editor',
  'GET,HEAD /api/leads.csv': 'site editor',
  'DELETE /api/leads/:id': 'site editor',
  'POST /api/bugs': 'signed-in',
  'GET,HEAD /api/bugs': 'platform admin',
  'DELETE /api/bugs/:id': 'platform admin',
  'GET,HEAD /api/sdk/types.d.ts': 'site viewer',
  'GET,HEAD /api/sdk/client.ts': 'site viewer',
};

/** Roles from lowest to highest; each holds everything the roles below it hold. */
export const ROLES_LOW_TO_HIGH: readonly Role[] = ['viewer', 'publisher', 'editor', 'admin', 'owner'];

export type Access =
  | { kind: 'public' }
  | { kind: 'signed-in'; unrestrictedOnly: boolean }
  | { kind: 'site'; param: string | null; min: Role }
  | { kind: 'platform'; min: Role };

/** {@link EXPECTED_ACCESS} by `METHOD pattern`, parsed. */
export const accessByRoute = new Map<string, Access>(
  Object.entries(EXPECTED_ACCESS).flatMap(([key, text]) => {
    const [methods = '', url = ''] = key.split(' ');
    return methods.split(',').map((method) => [`${method} ${url}`, parseAccess(text)] as const);
  }),
);

export function parseAccess(text: string): Access {
  if (text === 'public') return { kind: 'public' };
  if (text === 'signed-in') return { kind: 'signed-in', unrestrictedOnly: false };
  if (text === 'signed-in, unrestricted') return { kind: 'signed-in', unrestrictedOnly: true };
  const match = /^(site|platform)(?:\(:(\w+)\))? (\w+)$/.exec(text);
  const min = match?.[3] as Role | undefined;
  if (!match || !min || !ROLES_LOW_TO_HIGH.includes(min)) throw new Error(`unreadable access: ${text}`);
  return match[1] === 'site' ? { kind: 'site', param: match[2] ?? null, min } : { kind: 'platform', min };
}

export function atLeast(role: Role, min: Role): boolean {
  return ROLES_LOW_TO_HIGH.indexOf(role) >= ROLES_LOW_TO_HIGH.indexOf(min);
}
