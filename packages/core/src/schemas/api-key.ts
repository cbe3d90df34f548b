import { z } from 'zod';
import { DateTime, Role, SiteId } from './common';

/** The roles an API key can carry (owner keys are only made by `CMS_OWNER_KEY` at first start). */
export const ApiKeyRole = Role.exclude(['owner']).meta({ id: 'ApiKeyRole' });
export type ApiKeyRole = z.infer<typeof ApiKeyRole>;

/** An API key id (not the secret). */
export const ApiKeyId = z.string().min(1).max(200);

/**
 * A service-minted API key, metadata only: the list never shows the secret. `prefix` is the
 * first characters of the secret, so a user can tell keys apart.
 */
export const ApiKey = z
  .object({
    id: ApiKeyId,
    name: z.string(),
    role: Role,
    /** The site the key was minted on; null for a platform key. */
    siteId: SiteId.nullable(),
    /** When set, the key works only on these sites. */
    allowedSites: z.array(SiteId).optional(),
    prefix: z.string(),
    createdAt: DateTime,
    createdBy: z.string().nullable().optional(),
    lastUsedAt: DateTime.nullable().optional(),
    expiresAt: DateTime.nullable().optional(),
    /**
     * Set on an engine-direct graph-level key (`tg_…`): the graph it is bound to. It reaches
     * only that site (`X-Site-Id` implied), never platform-level routes.
     */
    graph: z.string().optional(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKey>;

/** GET /api/auth/api-keys */
export const ApiKeyList = z.array(ApiKey).meta({ id: 'ApiKeyList' });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

/** POST /api/auth/api-keys: `name` and `role`; optionally the sites it is restricted to and an expiry. */
export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: ApiKeyRole,
    allowedSites: z.array(SiteId).min(1).max(100).optional(),
    expiresAt: DateTime.optional(),
    /** Mint an engine-direct graph-level key (`tg_…`) bound to the current site's graph; `allowedSites` is refused with it. */
    graph: z.boolean().optional(),
  })
  .meta({ id: 'CreateApiKeyBody' });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

/** The answer of POST /api/auth/api-keys: the key with its secret, which is shown this once. */
export const ApiKeyCreated = ApiKey.extend({ secret: z.string().min(16) }).meta({ id: 'ApiKeyCreated' });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

/** Path parameters of /api/auth/api-keys/{id}. */
export const ApiKeyParams = z.object({ id: ApiKeyId });
export type ApiKeyParams = z.infer<typeof ApiKeyParams>;

/** DELETE /api/auth/api-keys/{id}: the key stops working at once. */
export const RevokeApiKeyResponse = z
  .object({ ok: z.literal(true), id: ApiKeyId })
  .meta({ id: 'RevokeApiKeyResponse' });
export type RevokeApiKeyResponse = z.infer<typeof RevokeApiKeyResponse>;
