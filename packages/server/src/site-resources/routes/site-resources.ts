import { Seo, TrellisError, View, ViewParams } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { siteOf } from '../../http/site-of';
import { checkPrecondition, valueTag } from '../../shared/entity-tag';
import { publicResourceId } from '../../shared/internal-ids';
import { OTHER_RESOURCES, QUERIES, ROUTES, TRANSFORMS, VIEWS } from '../resource-specs';
import { resourceNodeId } from '../site-resources';
import { registerSiteResource } from './register-site-resource';
import { registerSiteResourceDelete } from './register-site-resource-delete';
import { registerSavedQueryRun } from './saved-query-run';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Spec §4 "Other site-scoped resource namespaces": transforms, routes, views (with
 * /views/{name}/seo), saved queries (with POST /queries/{name}/run), scripts, block types,
 * widgets and page kits — list, get, create, update, delete.
 */
export const siteResourceRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const spec of [TRANSFORMS, ROUTES, VIEWS, QUERIES, ...OTHER_RESOURCES]) {
    registerSiteResource(app, spec);
    registerSiteResourceDelete(app, spec);
  }
  registerSavedQueryRun(app);

  app.get(
    '/api/views/:name/seo',
    {
      schema: {
        tags: ['views'],
        summary: 'A view’s SEO settings',
        params: ViewParams,
        response: { 200: Seo, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const node = await siteOf(request).graph.getNode(resourceNodeId(VIEWS, request.params.name));
      if (!node) throw TrellisError.of('not_found', { resource: `View \`${request.params.name}\`` });
      const seo = (node.props.seo as Record<string, unknown> | undefined) ?? {};
      return withEtag(reply, valueTag(seo)).send(seo);
    },
  );

  app.put(
    '/api/views/:name/seo',
    {
      schema: {
        tags: ['views'],
        summary: 'Replace a view’s SEO settings',
        description:
          'With `If-Match` (the ETag of `GET /api/views/{name}/seo`), 409 `version_conflict` when they changed since. The answer is the view; its `ETag` is that of the new SEO settings.',
        params: ViewParams,
        body: Seo,
        response: { 200: View, ...errors },
      },
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request, reply) => {
      const view = await siteOf(request).graph.transaction(async (tx) => {
        const id = resourceNodeId(VIEWS, request.params.name);
        const node = await tx.getNode(id);
        if (!node) throw TrellisError.of('not_found', { resource: `View \`${request.params.name}\`` });
        checkPrecondition({
          precondition: ifMatchOf(request),
          current: valueTag((node.props.seo as Record<string, unknown> | undefined) ?? {}),
          resource: `SEO settings of view ${request.params.name}`,
        });
        const props = { ...node.props, seo: request.body, updatedAt: app.trellis.clock.now().toISOString() };
        await tx.updateNode(id, { props });
        await tx.appendAudit({
          actor: actorOf(request.principal!),
          action: 'views.seo',
          target: publicResourceId(id),
        });
        return props as View;
      });
      return withEtag(reply, valueTag(request.body)).send(view);
    },
  );
};
