import { describe, expect, it } from 'vitest';
import { apiKeyLookupId, hashToken, isMintedKey, mintApiKey, tokenMatchesHash } from './api-key-secret';

describe('API key secrets', () => {
  it('mints distinct high-entropy keys looked up by their non-secret prefix', () => {
    const a = mintApiKey();
    const b = mintApiKey();
    expect(a.token).not.toBe(b.token);
    expect(isMintedKey(a.token)).toBe(true);
    expect(a.token).toMatch(/^tk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(apiKeyLookupId(a.token)).toBe(a.prefixId);
    expect(a.hash).toBe(hashToken(a.token));
    expect(a.hash).not.toContain(a.token.slice(16));
  });

  it('matches only the exact token', () => {
    const key = mintApiKey();
    expect(tokenMatchesHash(key.token, key.hash)).toBe(true);
    expect(tokenMatchesHash(`${key.token}x`, key.hash)).toBe(false);
    expect(tokenMatchesHash(key.token.slice(0, -1), key.hash)).toBe(false);
    expect(tokenMatchesHash(key.token, 'abcd')).toBe(false);
  });

  it('gives operator-chosen keys a hash-derived lookup id', () => {
    expect(apiKeyLookupId('my-own-owner-key-1234')).toMatch(/^h[0-9a-f]{11}$/);
    expect(apiKeyLookupId('my-own-owner-key-1234')).toBe(apiKeyLookupId('my-own-owner-key-1234'));
  });
});
