import { TrellisError } from '@trelliscms/core';
import type { Graph } from '../engines/port';
import { type ApiKeyRecord, loadApiKey } from '../platform/api-keys';
import { getUser, userForSubject } from '../platform/users';
import type { Clock } from '../shared/clock';
import type { ApiKeyCache } from './api-key-cache';
import { apiKeyLookupId, hashMatches, hashToken } from './api-key-secret';
import { IdTokenError, type IdTokenVerifier } from './id-token';
import type { PlatformAccessCache } from './platform-access-cache';
import type { Principal } from './types';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/** Whether the token is a JWT: three base64url parts, the first a JSON header naming `alg`. */
function looksLikeJwt(token: string): boolean {
  if (!JWT_SHAPE.test(token)) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && 'alg' in header;
  } catch {
    return false;
  }
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S{1,8192})[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** A checked credential: who calls, and when an API key stops being valid (null: never, or an ID token). */
export interface Authenticated {
  principal: Principal;
  keyExpiresAtMs: number | null;
}

/**
 * Spec §5.4 steps 1 and 2: checks the credential and resolves the platform user. An
 * ID token (three dot-separated parts) is verified against the OpenID Connect provider and
 * mapped to a user by `sub`; anything else is looked up as an API key by its non-secret
 * prefix (through the cache) and compared in constant time. Throws 401
 * `invalid_credential` otherwise; the message never echoes the token. With `access`, the
 * key's user is read through that cache (the request path); without it, from the graph.
 */
export async function authenticate({
  token,
  platform,
  cache,
  access,
  verifyIdToken,
  tokenHash: knownHash,
  clock,
}: {
  token: string;
  /** The token's `hashToken`, when the caller has it already. */
  tokenHash?: string;
  platform: Graph;
  cache: ApiKeyCache<ApiKeyRecord>;
  access?: PlatformAccessCache;
  verifyIdToken: IdTokenVerifier | null;
  /** Compared with an API key's `expiresAt`; stamps users created at first sign-in. */
  clock: Clock;
}): Promise<Authenticated> {
  if (looksLikeJwt(token)) {
    if (!verifyIdToken) {
      throw TrellisError.of('invalid_credential', {
        detail: 'ID tokens are not accepted (no OIDC provider is configured)',
      });
    }
    let claims: Awaited<ReturnType<IdTokenVerifier>>;
    try {
      claims = await verifyIdToken(token);
    } catch (error) {
      const detail = error instanceof IdTokenError ? error.message : 'the token could not be verified';
      throw TrellisError.of('invalid_credential', { detail });
    }
    const user = await userForSubject(platform, claims, clock);
    return {
      principal: { kind: 'id_token', userId: user.id, platformRole: user.platformRole, allowedSites: null },
      keyExpiresAtMs: null,
    };
  }

  const tokenHash = knownHash ?? hashToken(token);
  const lookupId = apiKeyLookupId(token, tokenHash);
  const record = await cache.get(lookupId, () => loadApiKey(platform, lookupId));
  if (!record || !hashMatches(tokenHash, record.hash) || record.revokedAt !== null) {
    throw TrellisError.of('invalid_credential', { detail: 'unknown or revoked API key' });
  }
  const keyExpiresAtMs = record.expiresAt === null ? null : Date.parse(record.expiresAt);
  if (keyExpiresAtMs !== null && keyExpiresAtMs <= clock.now().getTime()) {
    throw TrellisError.of('invalid_credential', { detail: 'the API key has expired' });
  }
  const user = access ? await access.user(platform, record.userId) : await getUser(platform, record.userId);
  if (record.platformRole === 'owner') {
    if (user?.platformRole !== 'owner') {
      throw TrellisError.of('invalid_credential', { detail: 'unknown or revoked API key' });
    }
    return {
      principal: {
        kind: 'api_key',
        userId: record.userId,
        keyId: record.id,
        platformRole: 'owner',
        allowedSites: null,
      },
      keyExpiresAtMs,
    };
  }
  return {
    principal: {
      kind: 'api_key',
      userId: record.userId,
      keyId: record.id,
      platformRole: user?.platformRole ?? null,
      allowedSites: record.allowedSites ?? (record.siteId ? [record.siteId] : []),
      keyRole: record.role,
      ...(record.graph && record.siteId ? { graphSiteId: record.siteId } : {}),
    },
    keyExpiresAtMs,
  };
}
