import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { SiteScope } from '../../auth/types';

/** Adds the required `X-Site-Id` header to a route's (JSON Schema) headers. */
function withSiteHeader(headers: unknown): Record<string, unknown> {
  const base = (headers ?? { type: 'object', properties: {} }) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return {
    ...base,
    type: 'object',
    properties: {
      ...base.properties,
      'x-site-id': {
        type: 'string',
        pattern: '^site:[a-z0-9][a-z0-9-]*$',
        description: 'The site this request is about: `site:<slug>`',
      },
    },
    required: [...new Set([...(base.required ?? []), 'x-site-id'])],
  };
}

/**
 * The OpenAPI 3.1 document, generated from the core zod schemas attached to each route, at
 * `GET /api/openapi.json` (public). `version` is the API description's version
 * (docs/api-spec.md §9), not the server's.
 */
export const openapiPlugin = fp(
  async (app: FastifyInstance, opts: { version: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Trellis API',
          description:
            'Multi-site, graph-backed content management and static publishing. Errors are `{error, code?}` (docs/api-spec.md §7).',
          version: opts.version,
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'An API key or an OIDC ID token' },
          },
        },
        security: [{ bearer: [] }],
      },
      // Public routes (`config.public`) need no credential: `security: []` says so in the
      // document; `credential: 'optional'` routes take one or none. Site-scoped routes document their `X-Site-Id` header.
      transform: (input) => {
        const result = jsonSchemaTransform(input);
        const config = (input.route.config ?? {}) as {
          public?: boolean;
          credential?: 'optional';
          siteParam?: string;
          siteScope?: SiteScope;
        };
        if (config.public === true) return { ...result, schema: { ...result.schema, security: [] } };
        if (config.credential === 'optional') {
          return { ...result, schema: { ...result.schema, security: [{}, { bearer: [] }] } };
        }
        if (!config.siteParam && config.siteScope === 'site' && !result.schema.hide) {
          return { ...result, schema: { ...result.schema, headers: withSiteHeader(result.schema.headers) } };
        }
        return result;
      },
      transformObject: jsonSchemaTransformObject,
    });
    app.get(
      '/api/openapi.json',
      { schema: { hide: true }, config: { siteScope: 'none', public: true } },
      async () => app.swagger(),
    );
  },
  { name: 'trellis-openapi' },
);
