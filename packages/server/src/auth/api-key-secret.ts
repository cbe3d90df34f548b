import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Service-minted keys look like `tk_<prefixId>_<secret>`: the prefix is a lookup id, not a secret. */
const KEY_PATTERN = /^tk_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
/** Engine-direct graph-level keys look like `tg_<prefixId>_<secret>` (their lookup id is `g<prefixId>`). */
const GRAPH_KEY_PATTERN = /^tg_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** Whether `token` looks like an engine-direct graph-level key (`tg_…`). */
export function isGraphKey(token: string): boolean {
  return GRAPH_KEY_PATTERN.test(token);
}

/** Mints an engine-direct graph-level key: `tg_`, 48 bits of lookup prefix, 256 bits of secret. */
export function mintGraphKey(): MintedApiKey {
  const prefixId = randomBytes(6).toString('hex');
  const token = `tg_${prefixId}_${randomBytes(32).toString('base64url')}`;
  return { prefixId: `g${prefixId}`, token, hash: hashToken(token) };
}

export interface MintedApiKey {
  /** The non-secret lookup id (12 lowercase hex characters). */
  prefixId: string;
  /** The whole key the caller sends as `Authorization: Bearer …`; shown once. */
  token: string;
  /** What is stored: sha256 of the whole token, hex. */
  hash: string;
}

/** sha256 hex of a token. Keys carry 256 bits of entropy, so a fast hash is enough. */
export function hashToken(token: string): string {
  // The one-shot hash: a third of createHash's cost, and it runs on every request.
  return hash('sha256', token, 'hex');
}

/** Mints a new key: 48 bits of lookup prefix and 256 bits of secret. */
export function mintApiKey(): MintedApiKey {
  const prefixId = randomBytes(6).toString('hex');
  const token = `tk_${prefixId}_${randomBytes(32).toString('base64url')}`;
  return { prefixId, token, hash: hashToken(token) };
}

/**
 * The lookup id of a bearer token that may be an API key: the prefix of a minted key, or for
 * an operator-chosen key (`CMS_OWNER_KEY`) `h` plus the first 11 hex digits of its hash.
 * Pass `tokenHash` (the token's {@link hashToken}) when it is already computed.
 */
export function apiKeyLookupId(token: string, tokenHash?: string): string {
  const match = KEY_PATTERN.exec(token);
  if (match?.[1]) return match[1];
  const graph = GRAPH_KEY_PATTERN.exec(token);
  if (graph?.[1]) return `g${graph[1]}`;
  return `h${(tokenHash ?? hashToken(token)).slice(0, 11)}`;
}

/** Whether `token` looks like a minted key (`tk_…`). */
export function isMintedKey(token: string): boolean {
  return KEY_PATTERN.test(token);
}

/** Compares the token's hash to the stored hash in constant time. */
export function tokenMatchesHash(token: string, storedHash: string): boolean {
  return hashMatches(hashToken(token), storedHash);
}

/** Compares a token's {@link hashToken} to the stored hash in constant time. */
export function hashMatches(tokenHash: string, storedHash: string): boolean {
  const actual = Buffer.from(tokenHash, 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
