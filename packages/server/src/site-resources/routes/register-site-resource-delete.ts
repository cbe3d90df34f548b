import { DeleteQuery, NoContent } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { deleteSiteResource } from '../delete-site-resource';
import type { SiteResourceSpec } from '../site-resources';

const errors = errorResponses(400, 401, 403, 404, 409);

/** What holds a resource of each namespace, and what `?cascade=1` does (resource-holders.ts). */
const HOLDERS: Record<string, string> = {
  routes:
    'Held by the redirect routes that point at its path (or one of its pages); `?cascade=1` deletes those redirects with it.',
  views:
    'Held by the redirect routes that point at its path (or one of its pages); `?cascade=1` deletes those redirects with it.',
  scripts: 'Held by the `script` transforms that run it; `?cascade=1` deletes those transforms with it.',
  'block-types':
    'Held by the items whose body has a block of it and the page kits whose blocks use it; no cascade (content is never rewritten by a delete).',
  workflows:
    'Held by the items a move left in one of its states other than the initial and the published ones (move them first); no cascade. Deleting it puts its types back on the built-in default workflow.',
};

/** Registers `DELETE /api/<base>/:<key>` for one namespace (204, or 409 `in_use` naming the holders). */
export function registerSiteResourceDelete(app: FastifyInstance, spec: SiteResourceSpec): void {
  const noun = spec.label.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  app.withTypeProvider<ZodTypeProvider>().delete(
    `/api/${spec.base}/:${spec.key}`,
    {
      schema: {
        tags: [spec.base],
        summary: `Delete a ${noun}`,
        description: `204 when nothing holds it; 409 \`in_use\` naming the holders (\`holders: [{kind, id, detail, cascades}]\`) otherwise. ${HOLDERS[spec.base] ?? 'Nothing else names it, so it is always deletable.'}`,
        params: spec.params,
        querystring: DeleteQuery,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: spec.writePermission },
    },
    async (request, reply) => {
      await deleteSiteResource({
        graph: siteOf(request).graph,
        spec,
        key: String((request.params as Record<string, unknown>)[spec.key]),
        cascade: request.query.cascade === true,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );
}
