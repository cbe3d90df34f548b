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
 * What main.ts prints to stdout once, on the first start (never through the logger): where the
 * data lives, the owner key when it was generated, and the next step. Null on later starts.
 */
export function firstStartNotice(
  bootstrap: OwnerBootstrap | null,
  where: { address: string; dataDir: string | null },
): string | null {
  if (!bootstrap) return null;
  const lines = ['', 'Trellis is set up (first start).', ''];
  lines.push(
    where.dataDir
      ? `  Data:   ${where.dataDir} (graphs, deployed sites, media)`
      : '  Data:   the Neo4j database (deployed sites and media under CMS_DATA_DIR)',
  );
  lines.push(`  API:    ${where.address}/api (OpenAPI: ${where.address}/api/openapi.json)`);
  if (bootstrap.generated) {
    lines.push('', 'Platform owner API key (shown once; store it now):', '', `  ${bootstrap.token}`);
  } else {
    lines.push('', 'The platform owner API key is the CMS_OWNER_KEY you set.');
  }
  lines.push(
    '',
    'Next: log the CLI in (it reads the key from standard input, out of your shell history):',
    '',
    `  cms login --url ${where.address} --key-stdin`,
    '  cms sites create "My site" --slug my-site --starter-kit author --use',
    '',
    'Lost the owner key? Stop the server and run `trellis-server reset-owner-key`.',
    '',
    '',
  );
  return lines.join('\n');
}
