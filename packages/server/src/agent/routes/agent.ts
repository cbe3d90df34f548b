import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AgentRpcBody, AgentRpcResponse, TrellisError } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { createAgentServer } from '../agent-server';
import { apiCallAs } from '../api-call';
import { ValidateResults } from '../validate-results';

const errors = errorResponses(400, 401, 403, 413);

/** How long, and how many, validate results `get_build` can read again. */
const VALIDATE_RESULTS = { ttlMs: 30 * 60_000, max: 200 } as const;

const DESCRIPTION =
  'The Model Context Protocol endpoint for AI agents (docs/agent.md), over the Streamable HTTP transport in stateless mode: each POST carries one JSON-RPC message (or a batch) and is answered with JSON; there is no session and no event stream (GET and DELETE answer 405). Authenticated like every route (`Authorization: Bearer <API key>`) on the site of `X-Site-Id`; every tool is a call of this API as that caller, so it is refused exactly when the same HTTP request would be (a viewer key reads, an editor key also writes drafts; no tool publishes or deploys). Tools: list_types, search_content, get_item, list_items, create_draft, update_draft, list_saved_queries, run_saved_query, start_validate_build, get_build, propose_release. A refused tool call is a tool result with `isError` whose text starts with the Trellis error code.';

/**
 * `/api/agent`: an MCP server (the official TypeScript SDK) mounted in Fastify. The auth hook
 * has checked the credential and the site before the handler runs (a missing key is 401, a
 * site the key cannot read 403); the handler then gives the raw request and response, and the
 * body Fastify parsed, to a fresh stateless transport and server for this request alone.
 */
export const agentRoutes: FastifyPluginAsyncZod = async (app) => {
  const validateResults = new ValidateResults({
    ...VALIDATE_RESULTS,
    now: () => app.trellis.clock.now().getTime(),
  });

  app.post(
    '/api/agent',
    {
      schema: {
        tags: ['agent'],
        summary: 'MCP endpoint for AI agents (Streamable HTTP, stateless)',
        description: DESCRIPTION,
        body: AgentRpcBody,
        response: { 200: AgentRpcResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const server = createAgentServer({
        version: app.trellis.version,
        context: { api: apiCallAs(app, request), validateResults, siteId: site.id },
        log: request.log,
        requestId: request.id,
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      // From here the transport writes the response; headers the app's hooks set (CORS, the
      // request id) are handed on to it.
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value as string | string[] | number);
      }
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ err: error }, 'the MCP transport failed');
        if (!reply.raw.headersSent) {
          const body = TrellisError.of('internal_error', { requestId: request.id }).toBody();
          reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        } else if (!reply.raw.writableEnded) {
          reply.raw.end();
        }
      }
    },
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/api/agent',
      // Never a success, so left out of the OpenAPI document; the POST operation says they answer 405.
      schema: { hide: true },
      config: { siteScope: 'site', permission: 'content:read' },
      handler: async () => {
        throw TrellisError.of(
          'method_not_allowed',
          {
            method,
            url: '/api/agent',
            detail:
              'the MCP endpoint is stateless: send every message with POST; it opens no event stream and keeps no session',
          },
          { headers: { allow: 'POST' } },
        );
      },
    });
  }
};
