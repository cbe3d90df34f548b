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

/** The conditional-request headers a route takes, by method (http/plugins/conditional-requests.ts, idempotency.ts). */
function conditionalHeaders(methods: string[]): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  if (methods.includes('GET')) {
    headers['if-none-match'] = {
      type: 'string',
      description: 'An ETag of an earlier read: 304 Not Modified, without a body, while it is current',
    };
  }
  if (methods.includes('PUT') || methods.includes('PATCH')) {
    headers['if-match'] = {
      type: 'string',
      description:
        'The ETag of the read this write is based on (or `*`): 409 `version_conflict` when it is no longer current',
    };
  }
  if (methods.some((method) => method === 'POST' || method === 'PUT' || method === 'PATCH')) {
    headers['idempotency-key'] = {
      type: 'string',
      maxLength: 255,
      description:
        'Makes the write safe to retry for 24 h: the same request with the same key gets the first answer again (`Idempotent-Replayed: true`) and writes nothing; another request with it is 422 `idempotency_key_reused`',
    };
  }
  return headers;
}

/** Adds optional headers to a route's (JSON Schema) headers. */
function withHeaders(headers: unknown, extra: Record<string, unknown>): Record<string, unknown> {
  const base = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  return { ...base, type: 'object', properties: { ...extra, ...base.properties } };
}

/** The `webhooks` section of the document: what a webhook subscription receives (docs/events.md). */
const OUTGOING_WEBHOOKS = {
  trellisEvent: {
    post: {
      summary: 'A Trellis event, POSTed to each subscribed URL',
      description:
        'One delivery of an event to a webhook subscription (`/api/webhooks`). Verify `Trellis-Signature` (`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the subscription secret) over the raw body, e.g. with `verifyWebhookSignature` of @trelliscms/sdk. Answer 2xx; anything else is retried with backoff. The event types and their `data` are listed in docs/events.md.',
      parameters: [
        { in: 'header', name: 'Trellis-Signature', required: true, schema: { type: 'string' } },
        { in: 'header', name: 'Trellis-Event-Id', required: true, schema: { type: 'string' } },
        { in: 'header', name: 'Trellis-Event-Type', required: true, schema: { type: 'string' } },
        { in: 'header', name: 'Trellis-Delivery-Id', required: true, schema: { type: 'string' } },
        { in: 'header', name: 'Trellis-Webhook-Id', required: true, schema: { type: 'string' } },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/TrellisEvent' } } },
      },
      responses: { '2XX': { description: 'Received; any other answer is a failed attempt' } },
    },
  },
};

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
        if (result.schema.hide) return result;
        const methods = [input.route.method].flat().map(String);
        let headers = withHeaders(result.schema.headers, conditionalHeaders(methods));
        if (!config.siteParam && config.siteScope === 'site') headers = withSiteHeader(headers);
        return { ...result, schema: { ...result.schema, headers } };
      },
      // The deliveries the server sends (OpenAPI 3.1 `webhooks`): one event envelope for every type.
      transformObject: (input) => {
        const document = jsonSchemaTransformObject(input);
        return { ...document, webhooks: OUTGOING_WEBHOOKS } as typeof document;
      },
    });
    app.get(
      '/api/openapi.json',
      { schema: { hide: true }, config: { siteScope: 'none', public: true } },
      async () => app.swagger(),
    );
  },
  { name: 'trellis-openapi' },
);
