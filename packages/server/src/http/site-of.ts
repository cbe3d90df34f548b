import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SiteContext } from '../auth/types';
import { getSite, type SiteView, toSiteView } from '../platform/sites';

/**
 * The site a site-scoped route works on (`config.siteScope: 'site'` or `config.siteParam`): the
 * auth hook resolves it before the handler runs. Called on a route that has none, it throws the
 * registry's internal error (a route declaration bug, never the caller's).
 */
export function siteOf(request: FastifyRequest): SiteContext {
  const site = request.site;
  if (!site) throw TrellisError.of('internal_error', { requestId: request.id });
  return site;
}

/** The full record of the site a site-scoped route works on (settings included); 404 when it went. */
export async function siteViewOf(app: FastifyInstance, request: FastifyRequest): Promise<SiteView> {
  const record = await getSite(app.trellis.platform, siteOf(request).id);
  if (!record) throw TrellisError.of('not_found', { resource: `Site \`${siteOf(request).id}\`` });
  return toSiteView(record);
}
