import { CONTENT_LABEL } from '../../src/content/item-record';
import type { Graph, GraphWriter } from '../../src/engines/port';
import { RENAMED_LABELS } from '../../src/migrations/rename-internal-ids';
import { DATA_VERSION_NODE_ID } from '../../src/migrations/site-data-version';
import { INTERNAL_ID_PREFIX, publicResourceId } from '../../src/shared/internal-ids';
import { allNodes } from '../../src/shared/node-pages';

/** Moves a node to another id with its edges (what the old server would have stored). */
async function moveNode(tx: GraphWriter, from: string, to: string): Promise<void> {
  const node = await tx.getNode(from);
  if (!node) return;
  const [outgoing, incoming] = await Promise.all([tx.getEdges({ from }), tx.getEdges({ to: from })]);
  await tx.deleteNode(from);
  await tx.putNode({ id: to, labels: node.labels, props: node.props });
  for (const edge of outgoing) await tx.mergeEdge({ ...edge, from: to });
  for (const edge of incoming) await tx.mergeEdge({ ...edge, to });
}

/**
 * Rewrites a graph the current code wrote into what the server stored before data migrations
 * existed: internal nodes under their old ids (`type:movie`, `template:home@1`, `asset:…`,
 * `live:prod:…`), items indexed under every string of their node, no data version.
 */
export async function toOldLayout(graph: Graph): Promise<void> {
  await graph.transaction(async (tx) => {
    for (const { label } of RENAMED_LABELS) {
      for (const node of await allNodes(tx, { label })) {
        if (node.id.startsWith(INTERNAL_ID_PREFIX)) await moveNode(tx, node.id, publicResourceId(node.id));
      }
    }
    // A put without searchText indexes every string of the node, as the old server did.
    for (const node of await allNodes(tx, { label: CONTENT_LABEL })) await tx.putNode(node);
    await tx.deleteNode(DATA_VERSION_NODE_ID);
  });
}
