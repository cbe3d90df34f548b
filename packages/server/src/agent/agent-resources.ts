import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ok, type ToolContext, ToolFailure } from './agent-tools';

/** The URI of a content type's resource. */
export function typeResourceUri(name: string): string {
  return `trellis://types/${encodeURIComponent(name)}`;
}

/**
 * The site's content types as MCP resources (`trellis://types/{name}`, JSON: the full type), listed
 * and read through the API as the caller like the tools. A refused or failed read is a JSON-RPC
 * error whose message starts with the Trellis code.
 */
export function registerTypeResources(server: McpServer, { api }: ToolContext): void {
  const failure = (error: unknown): never => {
    if (error instanceof ToolFailure) {
      throw new McpError(
        error.code === 'not_found' ? ErrorCode.InvalidParams : ErrorCode.InternalError,
        `${error.code}: ${error.message}`,
        { code: error.code, status: error.status },
      );
    }
    throw error;
  };
  server.registerResource(
    'content-type',
    new ResourceTemplate('trellis://types/{name}', {
      list: async () => {
        try {
          const types = ok(await api({ method: 'GET', url: '/api/types' })) as Array<{
            name: string;
            label: string;
            fieldCount?: number;
          }>;
          return {
            resources: types.map((type) => ({
              uri: typeResourceUri(type.name),
              name: type.name,
              title: type.label,
              description: `Content type ${type.label} (${type.fieldCount ?? 0} fields)`,
              mimeType: 'application/json',
            })),
          };
        } catch (error) {
          return failure(error);
        }
      },
    }),
    {
      title: 'Content types',
      description:
        'Each content type of the site in full: fields with their rules, relationships, route pattern.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const name = decodeURIComponent(String(variables.name ?? ''));
      try {
        const type = ok(await api({ method: 'GET', url: `/api/types/${encodeURIComponent(name)}` }));
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(type, null, 2) }],
        };
      } catch (error) {
        return failure(error);
      }
    },
  );
}
