import {
  ContentType,
  ContentTypeParams,
  ContentTypeSummaryList,
  CreateContentTypeBody,
  DeleteQuery,
  NoContent,
  PageQuery,
  summarizeContentType,
  UpdateContentTypeBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { deleteType } from '../delete-type';
import { createType, getType, listTypes, typeTag, updateType } from '../type-repository';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Spec §4 Content types (site-scoped): list (summaries), create, get (full), PATCH (partial), DELETE. */
export const typesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/types',
    {
      schema: {
        tags: ['types'],
        summary: 'The site’s content types (summary shape)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: ContentTypeSummaryList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = pageOf((await listTypes(siteOf(request).graph)).map(summarizeContentType), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
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
      return withEtag(reply, typeTag(type)).status(201).send(type);
    },
  );

  app.get(
    '/api/types/:name',
    {
      schema: {
        tags: ['types'],
        summary: 'One content type with full field detail',
        description: 'The `ETag` covers the stored type: send it as `If-Match` with a PATCH.',
        params: ContentTypeParams,
        response: { 200: ContentType, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const type = await getType(siteOf(request).graph, request.params.name);
      return withEtag(reply, typeTag(type)).send(type);
    },
  );

  app.patch(
    '/api/types/:name',
    {
      schema: {
        tags: ['types'],
        summary: 'Change a content type (partial)',
        description:
          'The given keys replace the stored ones; the name cannot change. Stored items are never rewritten: a change that would make any of them invalid is refused with 409 `type_change_conflict`, naming the field and how many items fail. With `If-Match` (the ETag of the read), 409 `version_conflict` when the type changed since.',
        params: ContentTypeParams,
        body: UpdateContentTypeBody,
        response: { 200: ContentType, ...errors },
      },
      config: { siteScope: 'site', permission: 'types:manage' },
    },
    async (request, reply) => {
      const type = await updateType({
        graph: siteOf(request).graph,
        name: request.params.name,
        patch: request.body,
        actor: actorOf(request.principal!),
        clock: app.trellis.clock,
        precondition: ifMatchOf(request),
      });
      return withEtag(reply, typeTag(type)).send(type);
    },
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
