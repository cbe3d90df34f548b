import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import {
  type ApiKey,
  ApiKeyCreated,
  type ApiKeyCreateInput,
  ApiKeyList,
  RevokeApiKeyResponse,
} from '../schemas';

export type ApiKeyRecord = z.output<typeof ApiKey>;
export type ApiKeyWithSecret = z.output<typeof ApiKeyCreated>;
export type ApiKeyRevoked = z.output<typeof RevokeApiKeyResponse>;

/** Service-minted API keys of the client's site (site-scoped). */
export function createApiKeysApi(transport: Transport) {
  return {
    /** GET /api/auth/api-keys: metadata only, never the secret. */
    list: (options: CallOptions = {}): Promise<ApiKeyRecord[]> =>
      transport.request({ method: 'get', path: 'auth/api-keys', schema: ApiKeyList, ...options }),
    /** POST /api/auth/api-keys: mints a key; its `secret` is in this answer only. */
    create: (body: ApiKeyCreateInput, options: CallOptions = {}): Promise<ApiKeyWithSecret> =>
      transport.request({
        method: 'post',
        path: 'auth/api-keys',
        schema: ApiKeyCreated,
        json: body,
        ...options,
      }),
    /** DELETE /api/auth/api-keys/{id}: the key stops working. */
    revoke: (id: string, options: CallOptions = {}): Promise<ApiKeyRevoked> =>
      transport.request({
        method: 'delete',
        path: path('auth', 'api-keys', id),
        schema: RevokeApiKeyResponse,
        ...options,
      }),
  };
}
export type ApiKeysApi = ReturnType<typeof createApiKeysApi>;
