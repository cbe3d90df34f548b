import type { Principal } from './types';

/** Who the audit chain names for a request: the API key when one was used, else the user. */
export function actorOf(principal: Principal): string {
  return principal.keyId ?? principal.userId;
}
