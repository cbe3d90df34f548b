import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { FastifyBaseLogger } from 'fastify';
import { registerTypeResources } from './agent-resources';
import { AGENT_TOOLS, type ToolContext, ToolFailure, type ToolResult } from './agent-tools';

/** What the agent tells an MCP client about itself when it connects. */
export const AGENT_INSTRUCTIONS =
  'Trellis CMS, one site (the X-Site-Id of this connection), acting with the role of your API key. ' +
  'Read with list_types, search_content, list_items, get_item and run_saved_query; write drafts with ' +
  'create_draft and update_draft; check templates with start_validate_build; bundle items for review with ' +
  'propose_release; the content types are also resources (trellis://types/{name}). Nothing here publishes or deploys: people do that after review. A refused call is a ' +
  'tool error naming the Trellis error code (e.g. `forbidden` when your role lacks the permission).';

/**
 * An MCP server with the agent's tools ({@link AGENT_TOOLS}) for one HTTP request of one
 * caller (the stateless Streamable HTTP transport: every request brings its own credential,
 * so nothing is remembered between requests). Every tool error is a tool result with
 * `isError`, whose text and structured content carry the Trellis `code` and message; an
 * unexpected failure is logged and shows only its request id.
 */
export function createAgentServer({
  version,
  context,
  log,
  requestId,
}: {
  version: string;
  context: ToolContext;
  log: FastifyBaseLogger;
  requestId: string;
}): McpServer {
  const server = new McpServer(
    { name: 'trellis', title: 'Trellis CMS', version },
    { capabilities: { tools: {}, resources: {} }, instructions: AGENT_INSTRUCTIONS },
  );
  for (const tool of AGENT_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description.includes('Needs ')
          ? tool.description
          : `${tool.description} Needs ${tool.permission}.`,
        inputSchema: tool.input,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.isReadOnly,
          destructiveHint: false,
          idempotentHint: tool.isReadOnly,
          openWorldHint: false,
        },
      },
      (async (args: Record<string, unknown>): Promise<ToolResult> => {
        try {
          return await tool.run(args, context);
        } catch (error) {
          if (error instanceof ToolFailure) return error.toResult();
          log.error({ err: error, tool: tool.name }, 'agent tool failed');
          return new ToolFailure(
            'internal_error',
            `An internal error occurred. The request id is ${requestId}.`,
            500,
          ).toResult();
        }
      }) as never,
    );
  }
  registerTypeResources(server, context);
  return server;
}
