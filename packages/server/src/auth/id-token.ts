import { createRemoteJWKSet, customFetch, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import { type Persona, toPersona } from '../platform/users';
import type { GuardedFetch } from '../shared/outbound/guarded-fetch';

/** Signature algorithms accepted on ID tokens; `none` and HMAC (HS*) never are. */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'] as const;

export interface IdTokenVerifierOptions {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /**
   * After a successful JWKS fetch, how long before an unknown `kid` may trigger another fetch
   * (jose's `cooldownDuration`). A rotated signing key is picked up after at most this long,
   * without a restart. Default 30 s.
   */
  jwksCooldownMs?: number;
  /** Accepted clock skew for `exp`/`nbf`, in seconds. Default 5. */
  clockToleranceSec?: number;
  /**
   * How the key set is fetched: the server's guarded fetcher, told to trust the configured
   * JWKS origin (the operator named it); a redirect elsewhere is checked as usual.
   */
  fetch: GuardedFetch;
}

/** The claims Trellis uses from a verified ID token. */
export interface IdTokenClaims {
  sub: string;
  email: string | null;
  name: string | null;
  /** The optional `persona` claim (`designer`, `developer`, `author`): the user's default starter kit. */
  persona: Persona | null;
}

/** Why a token was refused; safe to show the caller (no token content). */
export class IdTokenError extends Error {
  override readonly name = 'IdTokenError';
}

/** An ID-token verifier bound to one OpenID Connect provider. */
export type IdTokenVerifier = (token: string) => Promise<IdTokenClaims>;

/**
 * Verifies ID tokens against the provider's JWKS (fetched over HTTP and cached by jose):
 * signature with an allow-listed algorithm, `iss`, `aud`, `exp`, `nbf` and a `sub`.
 * Throws {@link IdTokenError} on any failure; the JWKS being unreachable is an IdTokenError too.
 */
export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const jwksUrl = new URL(options.jwksUrl);
  const jwks = createRemoteJWKSet(jwksUrl, {
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    timeoutDuration: 5_000,
    [customFetch]: (url, init) =>
      options.fetch(url, {
        headers: init.headers,
        signal: init.signal,
        redirect: init.redirect,
        trustedOrigins: [jwksUrl.origin],
      }),
  });
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: [...ID_TOKEN_ALGORITHMS],
        clockTolerance: options.clockToleranceSec ?? 5,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw new IdTokenError(describeJoseError(error));
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw new IdTokenError('the token has no subject');
    }
    const persona = payload.persona;
    return {
      sub: payload.sub,
      email: typeof payload.email === 'string' ? payload.email : null,
      name: typeof payload.name === 'string' ? payload.name : null,
      persona: toPersona(persona),
    };
  };
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return `claim ${error.claim} failed (${error.reason})`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the provider matches the token';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the signature does not verify';
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) {
    return 'the provider key set is unavailable';
  }
  if (error instanceof joseErrors.JOSEError) return 'the token is malformed or not verifiable';
  return 'the token could not be verified';
}
