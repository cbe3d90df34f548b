import {
  CreateTemplateBody,
  MAX_TEMPLATE_LENGTH,
  Template,
  TemplateList,
  TemplateParams,
  templateSource,
  UpdateTemplateBody,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { getTemplate, listTemplates, listTemplateVersions, writeTemplate } from '../template-repository';

const errors = errorResponses(400, 401, 403, 404, 409, 502);

/** Room for a template of MAX_TEMPLATE_LENGTH characters of up to 4 UTF-8 bytes each, and its other fields. */
const TEMPLATE_BODY_BYTES = 4 * MAX_TEMPLATE_LENGTH + 64 * 1024;

/** Spec §4 Templates (site-scoped): versioned Liquid source; every PUT writes a new version. */
export const templatesRoutes: FastifyPluginAsyncZod = async (app) => {
  // The template writes take a longest template whatever BODY_LIMIT_BYTES is.
  const bodyLimit = Math.max(app.trellis.config.BODY_LIMIT_BYTES, TEMPLATE_BODY_BYTES);
  app.get(
    '/api/templates',
    {
      schema: {
        tags: ['templates'],
        summary: 'The site’s templates at their head versions',
        response: { 200: TemplateList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => listTemplates(siteOf(request).graph),
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
      return reply.status(201).send(template);
    },
  );

  app.get(
    '/api/templates/:name',
    {
      schema: {
        tags: ['templates'],
        summary: 'A template at its head version, with its source',
        params: TemplateParams,
        response: { 200: Template, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => getTemplate(siteOf(request).graph, request.params.name),
  );

  app.get(
    '/api/templates/:name/versions',
    {
      schema: {
        tags: ['templates'],
        summary: 'Every version of a template, oldest first',
        params: TemplateParams,
        response: { 200: TemplateList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => listTemplateVersions(siteOf(request).graph, request.params.name),
  );

  app.put(
    '/api/templates/:name',
    {
      schema: {
        tags: ['templates'],
        summary: 'Write a new version of a template',
        description:
          'Every key is optional; what is left out is kept from the head. Same 400 and 502 rules as POST.',
        params: TemplateParams,
        body: UpdateTemplateBody,
        response: { 200: Template, ...errors },
      },
      bodyLimit,
      config: { siteScope: 'site', permission: 'templates:manage' },
    },
    async (request) => {
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
      });
      return template;
    },
  );
};
