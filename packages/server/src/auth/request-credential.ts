import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashToken } from './api-key-secret';
import { bearerToken } from './authenticate';

/** The bearer credential of a request, read once and shared by the rate limit and authentication. */
export interface RequestCredential {
  /** The bearer token, or null when the `Authorization` header is absent or not `Bearer …`. */
  token: string | null;
  /**
   * sha256 hex of the token (its {@link hashToken}, what API keys are stored as), else of a
   * non-bearer `Authorization` header, else null when there is none. Never the credential itself.
   */
  hash: string | null;
}

const kCredential = Symbol('trellis.credential');
type WithCredential = FastifyRequest & { [kCredential]?: RequestCredential };

/** The request's {@link RequestCredential}, hashed on first use and kept on the request. */
export function requestCredential(request: FastifyRequest): RequestCredential {
  const carrier = request as WithCredential;
  const known = carrier[kCredential];
  if (known !== undefined) return known;
  const header = request.headers.authorization;
  const token = bearerToken(header);
  const credential: RequestCredential = {
    token,
    hash: token !== null ? hashToken(token) : header ? hash('sha256', header, 'hex') : null,
  };
  carrier[kCredential] = credential;
  return credential;
}
