import {
  ContentType,
  ContentTypeParams,
  ContentTypeSummaryList,
  CreateContentTypeBody,
  DeleteQuery,
  NoContent,
  summarizeContentType,
  UpdateContentTypeBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { deleteType } from '../delete-type';
import { createType, getType, listTypes, updateType } from '../type-repository';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Spec §4 Content types (site-scoped): list (summaries), create, get (full), PATCH (partial), DELETE. */
export const typesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/types',
    {
      schema: {
        tags: ['types'],
        summary: 'The site’s content types (summary shape)',
        response: { 200: ContentTypeSummaryList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => (await listTypes(siteOf(request).graph)).map(summarizeContentType),
  );

  app.post(
    '/api/types',
    {
      schema: {
        tags: ['types'],
        summary: 'Create a content type',
        description:
          'Validates the definition: the 12 field types, enum values, regexes that compile and cannot backtrack catastrophically, keyField naming a field, relationship targets that exist and uppercase edge labels. `listingOnly` is an alias of `emitPages: false` (`emitPages` wins).',
        body: CreateContentTypeBody,
        response: { 201: ContentType, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request, reply) => {
      const type = await createType({
        graph: siteOf(request).graph,
        input: request.body,
        actor: actorOf(request.principal!),
        clock: app.trellis.clock,
      });
      return reply.status(201).send(type);
    },
  );

  app.get(
    '/api/types/:name',
    {
      schema: {
        tags: ['types'],
        summary: 'One content type with full field detail',
        params: ContentTypeParams,
        response: { 200: ContentType, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => getType(siteOf(request).graph, request.params.name),
  );

  app.patch(
    '/api/types/:name',
    {
      schema: {
        tags: ['types'],
        summary: 'Change a content type (partial)',
        description:
          'The given keys replace the stored ones; the name cannot change. Stored items are never rewritten: a change that would make any of them invalid is refused with 409 `type_change_conflict`, naming the field and how many items fail.',
        params: ContentTypeParams,
        body: UpdateContentTypeBody,
        response: { 200: ContentType, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request) =>
      updateType({
        graph: siteOf(request).graph,
        name: request.params.name,
        patch: request.body,
        actor: actorOf(request.principal!),
        clock: app.trellis.clock,
      }),
  );

  app.delete(
    '/api/types/:name',
    {
      schema: {
        tags: ['types'],
        summary: 'Delete a content type',
        description:
          '204 when nothing holds it. 409 `in_use` naming the holders (`holders: [{kind, id, detail, cascades}]`): its items, and the definitions that name it — other types whose relationships or reference fields target it, templates bound to it, routes and views that list it or show one of its items, transforms and scripts that run on its items, block types allowed in it. With `?cascade=1` its items are deleted with it (each as DELETE /api/content/{type}/{id}: taken down where live, versions releases include kept); the definitions that name it still refuse the delete.',
        params: ContentTypeParams,
        querystring: DeleteQuery,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request, reply) => {
      await deleteType({
        graph: siteOf(request).graph,
        name: request.params.name,
        cascade: request.query.cascade === true,
        actor: actorOf(request.principal!),
        now: app.releases.now(),
      });
      return reply.status(204).send(null);
    },
  );
};
