import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * The OpenAPI 3.1 document, generated from the core zod schemas attached to each route, at
 * `GET /api/openapi.json` (public).
 */
export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { version: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Trellis API',
          description:
            'Multi-site, graph-backed content management and static publishing. Errors are `{error, code?}` (spec §7).',
          version: opts.version,
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'An API key or an OIDC ID token' },
          },
        },
        security: [{ bearer: [] }],
      },
      // Public routes (`config.public`) need no credential: `security: []` says so in the document.
      transform: (input) => {
        const result = jsonSchemaTransform(input);
        const isPublic = (input.route.config as { public?: boolean } | undefined)?.public === true;
        return isPublic ? { ...result, schema: { ...result.schema, security: [] } } : result;
      },
      transformObject: jsonSchemaTransformObject,
    });
    app.get('/api/openapi.json', { schema: { hide: true }, config: { public: true } }, async () =>
      app.swagger(),
    );
  },
  { name: 'trellis-openapi' },
);
