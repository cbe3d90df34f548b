import { siteClientSource, siteTypesDeclaration } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../http/error-responses';
import { siteOf, siteViewOf } from '../../http/site-of';
import { listTypes } from '../type-repository';

const tags = ['sdk'];
const errors = errorResponses(400, 401, 403);
const TYPESCRIPT = 'text/typescript; charset=utf-8';

/**
 * `/api/sdk`: the site's generated TypeScript (docs/sdk-generation.md) — the `.d.ts` of its
 * content types and a client typed by it — which `cms sdk generate` writes into a project.
 */
export const sdkFilesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/sdk/types.d.ts',
    {
      schema: {
        tags,
        summary: 'The site’s content types as a TypeScript declaration file',
        description:
          'Per content type `<Name>Fields` (an item’s fields as read: required ones required, enums as string unions, references as `<target>:<slug>` ids), `<Name>Input`, `<Name>Relationships` and `<Name>Id`, and the map `ContentTypes` that `withContentTypes` of `@trelliscms/sdk` takes.',
        response: { 200: z.string(), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const site = await siteViewOf(app, request);
      const types = await listTypes(siteOf(request).graph);
      return reply
        .type(TYPESCRIPT)
        .send(siteTypesDeclaration({ siteId: site.id, siteName: site.name, types }));
    },
  );

  app.get(
    '/api/sdk/client.ts',
    {
      schema: {
        tags,
        summary: 'A client of the site typed by its content types',
        description:
          '`createSiteClient(options)`: `createClient(options).site(<this site>)` with `content` typed by `./types.js` (GET /api/sdk/types.d.ts, saved beside it as `types.d.ts`).',
        response: { 200: z.string(), ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const site = await siteViewOf(app, request);
      return reply.type(TYPESCRIPT).send(siteClientSource({ siteId: site.id, siteName: site.name }));
    },
  );
};
