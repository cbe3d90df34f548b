import {
  CreateTemplateBody,
  MAX_TEMPLATE_LENGTH,
  NoContent,
  PageQuery,
  Template,
  TemplateList,
  TemplateParams,
  templateSource,
  UpdateTemplateBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { expectedVersionFrom, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf } from '../../http/site-of';
import { versionTag } from '../../shared/entity-tag';
import { deleteTemplate } from '../delete-template';
import { getTemplate, listTemplates, listTemplateVersions, writeTemplate } from '../template-repository';

const errors = errorResponses(400, 401, 403, 404, 409, 502);

/** Room for a template of MAX_TEMPLATE_LENGTH characters of up to 4 UTF-8 bytes each, and its other fields. */
const TEMPLATE_BODY_BYTES = 4 * MAX_TEMPLATE_LENGTH + 64 * 1024;

/** Spec §4 Templates (site-scoped): versioned Liquid source; every PUT writes a new version; DELETE. */
export const templatesRoutes: FastifyPluginAsyncZod = async (app) => {
  // The template writes take a longest template whatever BODY_LIMIT_BYTES is.
  const bodyLimit = Math.max(app.trellis.config.BODY_LIMIT_BYTES, TEMPLATE_BODY_BYTES);
  app.get(
    '/api/templates',
    {
      schema: {
        tags: ['templates'],
        summary: 'The site’s templates at their head versions',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: TemplateList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = pageOf(await listTemplates(siteOf(request).graph), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.post(
    '/api/templates',
    {
      schema: {
        tags: ['templates'],
        summary: 'Create a template',
        description:
          'The Liquid source goes in `content` (or its alias `html`). Liquid that does not parse is a 400 naming line and column. The write is read back before answering: 502 `template_write_not_visible` when it is not visible within about 3 s (retry; an identical retry answers the stored template). 409 when the name exists with other content.',
        body: CreateTemplateBody,
        response: { 201: Template, ...errors },
      },
      bodyLimit,
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request, reply) => {
      const { template } = await writeTemplate({
        graph: siteOf(request).graph,
        input: {
          name: request.body.name,
          content: templateSource(request.body),
          boundType: request.body.boundType,
          enabled: request.body.enabled,
        },
        create: true,
        actor: actorOf(request.principal!),
        clock: app.trellis.clock,
      });
      return withEtag(reply, versionTag(template.version)).status(201).send(template);
    },
  );

  app.get(
    '/api/templates/:name',
    {
      schema: {
        tags: ['templates'],
        summary: 'A template at its head version, with its source',
        description: 'The `ETag` is `"<version>"`: send it as `If-Match` with a PUT.',
        params: TemplateParams,
        response: { 200: Template, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const template = await getTemplate(siteOf(request).graph, request.params.name);
      return withEtag(reply, versionTag(template.version)).send(template);
    },
  );

  app.get(
    '/api/templates/:name/versions',
    {
      schema: {
        tags: ['templates'],
        summary: 'Every version of a template, oldest first',
        description: WHOLE_LIST_PAGING,
        params: TemplateParams,
        querystring: PageQuery,
        response: { 200: TemplateList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = pageOf(
        await listTemplateVersions(siteOf(request).graph, request.params.name),
        request.query,
      );
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.put(
    '/api/templates/:name',
    {
      schema: {
        tags: ['templates'],
        summary: 'Write a new version of a template',
        description:
          'Every key is optional; what is left out is kept from the head. Same 400 and 502 rules as POST. With `If-Match: "<version>"` (the ETag of the read), 409 `version_conflict` when the head has moved on instead of writing over it.',
        params: TemplateParams,
        body: UpdateTemplateBody,
        response: { 200: Template, ...errors },
      },
      bodyLimit,
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request, reply) => {
      const { template } = await writeTemplate({
        graph: siteOf(request).graph,
        input: {
          name: request.params.name,
          content: templateSource(request.body),
          boundType: request.body.boundType,
          enabled: request.body.enabled,
        },
        create: false,
        actor: actorOf(request.principal!),
        clock: app.trellis.clock,
        expectedVersion: expectedVersionFrom(request.headers['if-match']),
      });
      return withEtag(reply, versionTag(template.version)).send(template);
    },
  );

  app.delete(
    '/api/templates/:name',
    {
      schema: {
        tags: ['templates'],
        summary: 'Delete a template with all its versions',
        description:
          '204 when nothing holds it. 409 `in_use` naming the holders (`holders: [{kind, id, detail}]`): routes, views and block types that render with it, `template` transforms that run it, templates, widgets and page kits whose Liquid includes, renders or extends it, and content types whose pages it renders when no other template would. Templates have no cascade: change the holders first.',
        params: TemplateParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request, reply) => {
      await deleteTemplate({
        graph: siteOf(request).graph,
        name: request.params.name,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );
};
