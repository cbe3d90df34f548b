import { reindexPage } from '../content/search-index';
import { TYPE_LABEL, toStoredType } from '../content/type-repository';
import type { Graph } from '../engines/port';
import { allNodes } from '../shared/node-pages';

/** Items per transaction. */
const PAGE = 500;

/**
 * Data migration 1: items written before search text existed are indexed under every string
 * of their node (status, user ids, hashes); give each the search text of its type's text
 * fields. Idempotent (it recomputes the text), a page of items per transaction.
 * Returns how many items it rewrote.
 */
export async function reindexSearchText(graph: Graph): Promise<number> {
  let changed = 0;
  for (const typeNode of await allNodes(graph, { label: TYPE_LABEL })) {
    const type = toStoredType(typeNode);
    for (let offset = 0; ; offset += PAGE) {
      // Ordered by id, which this step never changes, so offsets stay valid between pages.
      const page = await graph.findNodes({ label: type.nodeLabel, limit: PAGE, offset });
      const ids = page.nodes.map((node) => node.id);
      changed += await graph.transaction((tx) => reindexPage(tx, type, ids));
      if (page.nodes.length < PAGE) break;
    }
  }
  return changed;
}
