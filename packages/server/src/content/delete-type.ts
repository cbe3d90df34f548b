import type { Graph } from '../engines/port';
import { applyLiveChanges, LIVE_ITEM_LABEL } from '../releases/live-state';
import { RELEASE_LABEL } from '../releases/release-records';
import { assertDeletable } from '../shared/in-use';
import { publicResourceId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';
import { deleteItemIn } from './item-repository';
import { findTypeHolders } from './type-holders';
import { forgetType, getType, typeNodeId } from './type-repository';

/**
 * Deletes content type `name` (404 when there is none), in one transaction with one audit
 * entry. 409 `in_use` while anything holds it ({@link findTypeHolders}). With `cascade`, its
 * items are deleted with it, each as DELETE /api/content/{type}/{id} would (versions releases
 * pin are kept with a tombstone; each item has its own audit entry), after taking the items of
 * the type that are live anywhere down in one live revision per environment; the definitions
 * that name the type still refuse the delete. Returns how many items the cascade deleted.
 */
export async function deleteType({
  graph,
  name,
  cascade,
  actor,
  now,
}: {
  graph: Graph;
  name: string;
  cascade: boolean;
  actor: string;
  now: Date;
}): Promise<{ deletedItems: number }> {
  const result = await graph.transaction(async (tx) => {
    const type = await getType(tx, name);
    const holders = await findTypeHolders(tx, type);
    const items = holders.filter((holder) => holder.kind === 'item');
    assertDeletable({
      resource: `Content type \`${name}\``,
      holders,
      cascade,
      cascadeDoes: `delete its ${items.length} item(s) with it (and take those live down)`,
    });
    let deletedItems = 0;
    if (cascade && items.length > 0) {
      const live = await allNodes(tx, {
        label: LIVE_ITEM_LABEL,
        where: [{ prop: 'type', op: 'eq', value: name }],
      });
      const byEnv = new Map<string, string[]>();
      for (const node of live) {
        const envId = String(node.props.envId);
        byEnv.set(envId, [...(byEnv.get(envId) ?? []), String(node.props.itemId)]);
      }
      for (const [envId, ids] of byEnv) {
        await applyLiveChanges(tx, {
          envId,
          targets: ids.map((itemId) => ({ itemId, version: null, hash: null })),
          cause: 'delete',
          actor,
          at: now,
        });
      }
      const releases = (await tx.findNodes({ label: RELEASE_LABEL })).nodes;
      const existing = new Set((await tx.getNodes(items.map((item) => item.id))).map((node) => node.id));
      for (const item of items) {
        if (!existing.has(item.id)) continue;
        await deleteItemIn(tx, {
          type,
          id: item.id,
          expectedVersion: null,
          actor,
          now,
          releases,
          auditData: { cascadeOf: publicResourceId(typeNodeId(name)) },
        });
        deletedItems++;
      }
    }
    await tx.deleteNode(typeNodeId(name));
    await tx.appendAudit({
      actor,
      action: 'type.delete',
      target: publicResourceId(typeNodeId(name)),
      data: { cascade, deletedItems },
    });
    return { deletedItems };
  });
  forgetType(graph, name);
  return result;
}
