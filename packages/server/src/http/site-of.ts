import { TrellisError } from '@trelliscms/core';
import type { FastifyRequest } from 'fastify';
import type { SiteContext } from '../auth/types';

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
