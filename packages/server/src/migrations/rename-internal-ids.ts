import type { Graph, GraphWriter } from '../engines/port';
import { INTERNAL_ID_PREFIX, internalNodeIdOf } from '../shared/internal-ids';

/** Nodes renamed per transaction. */
const PAGE = 200;

/**
 * The labels of the server's own nodes that used to share the item id space, with the id
 * prefix they had: `type:post` is now `~type:post` (shared/internal-ids.ts), and so on.
 */
export const RENAMED_LABELS: ReadonlyArray<{ label: string; prefix: string }> = [
  { label: 'ContentType', prefix: 'type:' },
  { label: 'Template', prefix: 'template:' },
  { label: 'TemplateVersion', prefix: 'template:' },
  { label: 'Transform', prefix: 'transform:' },
  { label: 'Route', prefix: 'route:' },
  { label: 'View', prefix: 'view:' },
  { label: 'Script', prefix: 'script:' },
  { label: 'BlockType', prefix: 'blocktype:' },
  { label: 'Widget', prefix: 'widget:' },
  { label: 'PageKit', prefix: 'pagekit:' },
  { label: 'Build', prefix: 'build:' },
  { label: 'MediaAsset', prefix: 'asset:' },
  { label: 'LiveItem', prefix: 'live:' },
  { label: 'LiveRevision', prefix: 'liverev:' },
  { label: 'LiveHead', prefix: 'livehead:' },
];

/**
 * Data migration 2: gives the server's own nodes their `~<kind>:<key>` ids, so no content type
 * name can make an item id equal one of them. Each node moves with its labels, props and
 * edges (they have no embeddings). Idempotent: a node already renamed is not found under its
 * old id. Old ids sort before `~`, so each round takes the first page of a label until no old
 * id is left. Returns how many nodes it renamed.
 */
export async function renameInternalIds(graph: Graph): Promise<number> {
  let renamed = 0;
  for (const { label, prefix } of RENAMED_LABELS) {
    for (;;) {
      const page = await graph.findNodes({ label, limit: PAGE });
      const old = page.nodes
        .map((node) => node.id)
        .filter((id) => id.startsWith(prefix) && !id.startsWith(INTERNAL_ID_PREFIX));
      if (old.length === 0) break;
      renamed += await graph.transaction(async (tx) => {
        let count = 0;
        for (const id of old) if (await renameNode(tx, label, id)) count += 1;
        return count;
      });
    }
  }
  return renamed;
}

/** Moves node `id` (when it still carries `label`) to `~<id>` with its edges. */
async function renameNode(tx: GraphWriter, label: string, id: string): Promise<boolean> {
  const node = await tx.getNode(id);
  if (!node?.labels.includes(label)) return false;
  const to = internalNodeIdOf(id);
  const [outgoing, incoming] = await Promise.all([tx.getEdges({ from: id }), tx.getEdges({ to: id })]);
  // Deleted first, so a unique value the node holds is free for its new id.
  await tx.deleteNode(id);
  await tx.putNode({ id: to, labels: node.labels, props: node.props });
  const moved = [
    ...outgoing.map((edge) => ({ ...edge, from: to, to: edge.to === id ? to : edge.to })),
    ...incoming.filter((edge) => edge.from !== id).map((edge) => ({ ...edge, to })),
  ];
  if (moved.length > 0) await tx.mergeEdges(moved);
  return true;
}
