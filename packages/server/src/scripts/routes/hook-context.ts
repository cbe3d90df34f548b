import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../auth/actor';
import { siteOf, siteViewOf } from '../../http/site-of';
import type { HookContext } from '../save-hooks';

/** The hook context of a site-scoped write request (the site's record is read only when a hook runs). */
export function hookContext(app: FastifyInstance, request: FastifyRequest): HookContext {
  return {
    graph: siteOf(request).graph,
    host: app.scripts,
    actor: actorOf(request.principal!),
    site: async () => {
      const site = await siteViewOf(app, request);
      return { id: site.id, name: site.name, publicUrl: site.publicUrl };
    },
  };
}
