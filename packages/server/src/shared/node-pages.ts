import type { GraphNode, GraphReader, NodeQuery } from '../engines/port';

/**
 * Every node a query matches, one page at a time, in the query's order (offset paging; the
 * query's own `limit` and `offset` are replaced). Stops after a short page or once the
 * query's `total` is reached; empty pages are not yielded.
 */
export async function* nodePages(
  graph: GraphReader,
  query: Omit<NodeQuery, 'limit' | 'offset'>,
  pageSize = 1000,
): AsyncGenerator<GraphNode[]> {
  for (let offset = 0; ; offset += pageSize) {
    const page = await graph.findNodes({ ...query, limit: pageSize, offset });
    if (page.nodes.length > 0) yield page.nodes;
    if (page.nodes.length < pageSize || offset + page.nodes.length >= page.total) return;
  }
}

/** Every node a query matches, read a page at a time (see {@link nodePages}). */
export async function allNodes(
  graph: GraphReader,
  query: Omit<NodeQuery, 'limit' | 'offset'>,
  pageSize = 1000,
): Promise<GraphNode[]> {
  const nodes: GraphNode[] = [];
  for await (const page of nodePages(graph, query, pageSize)) nodes.push(...page);
  return nodes;
}
