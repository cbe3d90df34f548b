import { TrellisError } from '@trelliscms/core';
import type { Graph } from '../engines/port';
import { assertDeletable } from '../shared/in-use';
import { publicResourceId } from '../shared/internal-ids';
import { cascadeOf, findResourceHolders, specOfHolder } from './resource-holders';
import { resourceNodeId, type SiteResourceSpec } from './site-resources';

/** `BlockType` → `Block type`. */
function nounOf(spec: SiteResourceSpec): string {
  const words = spec.label.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Deletes one resource of an "other" namespace (404 when there is none), in one transaction,
 * audited `<base>.delete`. 409 `in_use` while something holds it ({@link findResourceHolders});
 * with `cascade`, the holders its namespace cascades to (redirects to a route or view, the
 * transforms that run a script) are deleted with it, each with its own audit entry.
 */
export async function deleteSiteResource({
  graph,
  spec,
  key,
  cascade,
  actor,
}: {
  graph: Graph;
  spec: SiteResourceSpec;
  key: string;
  cascade: boolean;
  actor: string;
}): Promise<void> {
  const id = resourceNodeId(spec, key);
  await graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(spec.label)) {
      throw TrellisError.of('not_found', { resource: `${spec.label} \`${key}\`` });
    }
    const holders = await findResourceHolders(tx, spec, node.props);
    const cascading = holders.filter((holder) => holder.cascades);
    assertDeletable({
      resource: `${nounOf(spec)} \`${key}\``,
      holders,
      cascade,
      cascadeDoes: cascadeOf(spec, cascading.length),
    });
    const deleted: string[] = [];
    if (cascade) {
      for (const holder of cascading) {
        const holderSpec = specOfHolder(holder.kind);
        const holderId = resourceNodeId(holderSpec, holder.id);
        await tx.deleteNode(holderId);
        await tx.appendAudit({
          actor,
          action: `${holderSpec.base}.delete`,
          target: publicResourceId(holderId),
          data: { cascadeOf: publicResourceId(id) },
        });
        deleted.push(publicResourceId(holderId));
      }
    }
    await tx.deleteNode(id);
    await tx.appendAudit({
      actor,
      action: `${spec.base}.delete`,
      target: publicResourceId(id),
      ...(deleted.length > 0 ? { data: { cascade: true, deleted } } : {}),
    });
  });
}
