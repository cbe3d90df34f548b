import { z } from 'zod';

/**
 * One JSON-RPC 2.0 message of the Model Context Protocol (a request, notification or response),
 * as POSTed to `/api/agent` (docs/agent.md). The MCP SDK checks each message in full; this
 * schema only documents the shape and refuses what is not JSON-RPC at all.
 */
export const AgentRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .meta({ id: 'AgentRpcMessage' });
export type AgentRpcMessage = z.infer<typeof AgentRpcMessage>;

/** The body of `POST /api/agent`: one MCP JSON-RPC message, or a batch of them. */
export const AgentRpcBody = z
  .union([AgentRpcMessage, z.array(AgentRpcMessage).min(1).max(100)])
  .meta({ id: 'AgentRpcBody' });
export type AgentRpcBody = z.infer<typeof AgentRpcBody>;

/**
 * The JSON-RPC answer of `POST /api/agent` (`Content-Type: application/json`; the server answers
 * every request with JSON, never an event stream): a response, a batch of them, or nothing (202)
 * for notifications.
 */
export const AgentRpcResponse = z
  .union([AgentRpcMessage, z.array(AgentRpcMessage)])
  .meta({ id: 'AgentRpcResponse' });
export type AgentRpcResponse = z.infer<typeof AgentRpcResponse>;
