import { apiKeyLookupId, hashMatches, hashToken } from '../auth/api-key-secret';
import type { Graph, GraphReader } from '../engines/port';
import type { Clock } from '../shared/clock';
import { API_KEY_LABEL, createApiKey, loadApiKey, revokeApiKey } from './api-keys';
import { USER_LABEL } from './users';

/**
 * What a `CMS_OWNER_KEY` given on a later start is to the platform: `active` (an owner key that
 * authenticates), or why it does not: `revoked`, `expired`, `not_owner` (a key of someone else's
 * role) or `unknown` (no such key: it was changed after the first start, which used another).
 */
export type OwnerKeyStatus = 'active' | 'revoked' | 'expired' | 'not_owner' | 'unknown';

/** Checks `token` against the platform's stored keys (see {@link OwnerKeyStatus}). */
export async function ownerKeyStatus(
  platform: GraphReader,
  token: string,
  now: Date,
): Promise<OwnerKeyStatus> {
  const tokenHash = hashToken(token);
  const record = await loadApiKey(platform, apiKeyLookupId(token, tokenHash));
  if (!record || !hashMatches(tokenHash, record.hash)) return 'unknown';
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && Date.parse(record.expiresAt) <= now.getTime()) return 'expired';
  return record.platformRole === 'owner' ? 'active' : 'not_owner';
}

/**
 * The warning a server prints at start when `CMS_OWNER_KEY` is set but does not authenticate as
 * the owner (it only takes effect on the first start); null when it does, or is unset.
 */
export function ownerKeyWarning(status: OwnerKeyStatus | null): string | null {
  if (status === null || status === 'active') return null;
  const why = {
    unknown:
      'matches no key of this platform (it is only used on the first start, when the owner is created)',
    revoked: 'is a revoked key',
    expired: 'is an expired key',
    not_owner: 'is not the platform owner’s key',
  }[status];
  return `CMS_OWNER_KEY ${why}; it is ignored. To replace a lost owner key, stop the server and run \`trellis-server reset-owner-key\` with the same CMS_DATA_DIR (or Neo4j settings).`;
}

/**
 * Replaces the platform owner's key (an operator with access to the data directory, when the
 * owner key is lost): every active owner key is revoked and a new one created for the owner, with
 * exactly `token` when given, else minted. Audited as the system. The caller prints the token once.
 */
export async function resetOwnerKey({
  platform,
  clock,
  token,
}: {
  platform: Graph;
  clock: Clock;
  token?: string;
}): Promise<{ keyId: string; token: string; revoked: string[]; userId: string }> {
  const owners = await platform.findNodes({
    label: USER_LABEL,
    where: [{ prop: 'platformRole', op: 'eq', value: 'owner' }],
    limit: 1,
  });
  const owner = owners.nodes[0];
  if (!owner) {
    throw new Error(
      'this platform has no owner yet: start the server once, it creates the owner and prints its key',
    );
  }
  const keys = await platform.findNodes({
    label: API_KEY_LABEL,
    where: [{ prop: 'platformRole', op: 'eq', value: 'owner' }],
    limit: 10_000,
  });
  return platform.transaction(async (tx) => {
    const revoked: string[] = [];
    for (const key of keys.nodes) {
      if (key.props.revokedAt) continue;
      await revokeApiKey(tx, { id: key.id, actor: 'system', clock });
      revoked.push(key.id);
    }
    const created = await createApiKey(tx, {
      name: `platform owner (reset ${clock.now().toISOString()})`,
      role: 'owner',
      userId: owner.id,
      siteId: null,
      allowedSites: null,
      platformRole: 'owner',
      actor: 'system',
      token,
      clock,
    });
    return { keyId: created.record.id, token: created.token, revoked, userId: owner.id };
  });
}
