import { apiKeyLookupId } from '../../src/auth/api-key-secret';
import type { GraphEngine } from '../../src/engines/port';
import { createApiKey, loadApiKey } from '../../src/platform/api-keys';
import { bootstrapOwner } from '../../src/platform/bootstrap-owner';
import { PLATFORM_GRAPH } from '../../src/platform/platform-graph';
import { systemClock } from '../../src/shared/clock';

/**
 * A shared Neo4j keeps its platform graph between runs (and between suites): makes sure
 * `ownerKey` is a platform-owner key there — bootstrapping the platform when it is empty, else
 * adding the key to its existing owner. Call with an initialised engine.
 */
export async function ensureOwnerKey(engine: GraphEngine, ownerKey: string): Promise<void> {
  const platform = (await engine.openGraph(PLATFORM_GRAPH)) ?? (await engine.createGraph(PLATFORM_GRAPH));
  if (await bootstrapOwner({ platform, ownerKey, clock: systemClock })) return;
  const existing = await loadApiKey(platform, apiKeyLookupId(ownerKey));
  if (existing && existing.revokedAt === null && existing.platformRole === 'owner') return;
  const owners = await platform.findNodes({
    label: 'User',
    where: [{ prop: 'platformRole', op: 'eq', value: 'owner' }],
    limit: 1,
  });
  const owner = owners.nodes[0];
  if (!owner) throw new Error('the Neo4j platform graph has users but no owner');
  await platform.transaction((tx) =>
    createApiKey(tx, {
      name: 'test owner key',
      role: 'owner',
      userId: owner.id,
      siteId: null,
      allowedSites: null,
      platformRole: 'owner',
      actor: 'test',
      token: ownerKey,
      clock: systemClock,
    }),
  );
}
