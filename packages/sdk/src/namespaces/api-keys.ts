import {
  type ApiKey,
  ApiKeyCreated,
  ApiKeyList,
  type CreateApiKeyBody,
  RevokeApiKeyResponse,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** Service-minted API keys of the client's site (site-scoped). */
export function createApiKeysApi(transport: Transport) {
  return {
    /** GET /api/auth/api-keys: metadata only, never the secret. */
    list: (options: CallOptions = {}): Promise<ApiKey[]> =>
      transport.request({ method: 'get', path: 'auth/api-keys', schema: ApiKeyList, ...options }),
    /** POST /api/auth/api-keys: mints a key; its `secret` is in this answer only. */
    create: (body: z.input<typeof CreateApiKeyBody>, options: CallOptions = {}): Promise<ApiKeyCreated> =>
      transport.request({
        method: 'post',
        path: 'auth/api-keys',
        schema: ApiKeyCreated,
        json: body,
        ...options,
      }),
    /** DELETE /api/auth/api-keys/{id}: the key stops working. */
    revoke: (id: string, options: CallOptions = {}): Promise<RevokeApiKeyResponse> =>
      transport.request({
        method: 'delete',
        path: path('auth', 'api-keys', id),
        schema: RevokeApiKeyResponse,
        ...options,
      }),
  };
}
export type ApiKeysApi = ReturnType<typeof createApiKeysApi>;
