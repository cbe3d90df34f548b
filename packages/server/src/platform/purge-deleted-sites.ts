import { bumpAccessEpoch } from '../auth/access-epoch';
import { auditAnchorNodeId } from '../diagnostics/audit-anchors';
import type { Graph, GraphEngine } from '../engines/port';
import type { Clock } from '../shared/clock';
import { SITE_LABEL, toSiteRecord } from './sites';

/**
 * Ends the retention period of soft-deleted sites: for each site whose `purgeAfter` has
 * passed, drops its graph, then removes its record and memberships (freeing its slug) and
 * audits `site.purge` on the platform graph. Returns the purged site ids.
 */
export async function purgeExpiredSites({
  engine,
  platform,
  clock,
}: {
  engine: GraphEngine;
  platform: Graph;
  clock: Clock;
}): Promise<string[]> {
  const now = clock.now();
  const page = await platform.findNodes({
    label: SITE_LABEL,
    where: [{ prop: 'purgeAfter', op: 'lte', value: now.toISOString() }],
    limit: 1000,
  });
  const purged: string[] = [];
  for (const node of page.nodes) {
    const site = toSiteRecord(node);
    if (!site.deletedAt || !site.purgeAfter || Date.parse(site.purgeAfter) > now.getTime()) continue;
    await engine.dropGraph(site.graphName);
    await platform.transaction(async (tx) => {
      await tx.deleteNode(site.id);
      await tx.deleteNode(auditAnchorNodeId(site.graphName));
      await bumpAccessEpoch(tx);
      await tx.appendAudit({
        actor: 'system',
        action: 'site.purge',
        target: site.id,
        data: { graphName: site.graphName, deletedAt: site.deletedAt },
      });
    });
    purged.push(site.id);
  }
  return purged;
}
