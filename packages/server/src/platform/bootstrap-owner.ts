import type { Graph } from '../engines/port';
import type { Clock } from '../shared/clock';
import { createApiKey } from './api-keys';
import { createUser, ensureUserConstraints, USER_LABEL } from './users';

/** What the first start created: the platform owner and the secret of their key. */
export interface OwnerBootstrap {
  userId: string;
  keyId: string;
  /** The owner key. When `generated`, main.ts prints it once; it is never logged or stored. */
  token: string;
  /** True when no `CMS_OWNER_KEY` was given and the key was generated. */
  generated: boolean;
}

/**
 * On first start (a platform graph without users) creates the platform owner and their
 * owner key: with exactly `ownerKey` when given (`CMS_OWNER_KEY`), else a freshly minted
 * one. Later starts change nothing and return null.
 */
export async function bootstrapOwner({
  platform,
  ownerKey,
  clock,
}: {
  platform: Graph;
  ownerKey?: string;
  clock: Clock;
}): Promise<OwnerBootstrap | null> {
  await ensureUserConstraints(platform);
  const existing = await platform.findNodes({ label: USER_LABEL, limit: 1 });
  if (existing.total > 0) return null;
  return platform.transaction(async (tx) => {
    const user = await createUser(tx, {
      id: 'user:owner',
      name: 'Platform owner',
      email: null,
      sub: null,
      platformRole: 'owner',
      persona: null,
      actor: 'system',
      clock,
    });
    const { record, token } = await createApiKey(tx, {
      name: 'platform owner (first start)',
      role: 'owner',
      userId: user.id,
      siteId: null,
      allowedSites: null,
      platformRole: 'owner',
      actor: 'system',
      token: ownerKey,
      clock,
    });
    return { userId: user.id, keyId: record.id, token, generated: ownerKey === undefined };
  });
}

/**
 * The text main.ts prints to stdout once when the owner key was generated (never through
 * the logger); null when there is nothing to print.
 */
export function ownerKeyNotice(bootstrap: OwnerBootstrap | null): string | null {
  if (!bootstrap?.generated) return null;
  return `\nPlatform owner API key (shown once; store it now):\n\n  ${bootstrap.token}\n\nUse it as: Authorization: Bearer <key>\n\n`;
}
