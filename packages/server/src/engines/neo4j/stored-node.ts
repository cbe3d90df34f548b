import type { GraphNode, NodeJsonWithEdges, NodeWithEdges, Props } from '../port';
import { assertIdentifier } from '../shared/identifiers';
import { searchableText } from '../shared/search-text';
import { textTerms } from './lucene';

/** The fixed label every node of every graph carries in Neo4j. */
export const NODE_LABEL = 'TNode';

/**
 * Prefix of the real Neo4j label each Trellis label of a node is also written as (`Place` →
 * `L_Place`), beside the `labels` list property. The engine's own labels (`TNode`, `TAudit`,
 * `TGraph`…) do not start with `L_`, so no Trellis label can alias one of them.
 */
export const REAL_LABEL_PREFIX = 'L_';

/**
 * The real label of a Trellis label, ready to splice into query text: checked as an
 * identifier, prefixed and backtick-quoted (`L_Place` in backticks).
 */
export function realLabel(label: unknown): string {
  assertIdentifier(label, 'label');
  return `\`${REAL_LABEL_PREFIX}${label}\``;
}

/** Cypher: the real labels of a list of Trellis labels, for `SET n:$(…)` (dynamic labels). */
export function realLabelsOf(list: string): string {
  return `[l IN ${list} | '${REAL_LABEL_PREFIX}' + l]`;
}

/** Cypher: the real labels node `n` carries now, for `REMOVE n:$(…)`. */
export function realLabelsOn(node: string): string {
  return `[l IN labels(${node}) WHERE l STARTS WITH '${REAL_LABEL_PREFIX}']`;
}

/** Prefix of the node properties that copy a top-level prop for filters and ordering. */
export const FILTER_PREFIX = 'p_';

const FILTERABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The Neo4j properties of a node. Neo4j properties cannot hold nested maps, so the props
 * object is kept whole as the JSON string `json` (which round-trips exactly), and each
 * top-level prop Neo4j can store (a string, number, boolean or a list of one of those) is
 * copied to `p_<name>` for filters and ordering. `ft` holds the node's words for the
 * full-text index (of its `searchText` when given, then `fts` is true, else of the strings of
 * its props), `ftg` the graph name (so a Lucene query can be confined to one graph), and `tx`
 * the token of the write call that last wrote the node (see WriteAttempt).
 */
export function storedNode({ graph, node, token }: { graph: string; node: GraphNode; token: string }): Props {
  return { g: graph, ...storedNodeOwn(node), ftg: graph, tx: token };
}

/**
 * The properties of {@link storedNode} that differ from node to node: without `g`, `ftg` and
 * `tx`, which a batch statement sets from one parameter each (see CREATE_NODES), so a batch
 * does not send the graph name twice and the write token once per node.
 */
export function storedNodeOwn(node: GraphNode): Props {
  const stored: Props = {
    id: node.id,
    labels: node.labels,
    // validNode's text of the props (what it parsed them from), else the props serialized.
    json: node.propsJson ?? JSON.stringify(node.props),
    ft: textTerms(node.searchText ?? searchableText(node.props)).join(' '),
  };
  if (node.searchText !== undefined) stored.fts = true;
  for (const [key, value] of Object.entries(node.props)) {
    if (!FILTERABLE_KEY.test(key)) continue;
    const copy = filterValue(value);
    if (copy !== undefined) stored[`${FILTER_PREFIX}${key}`] = copy;
  }
  return stored;
}

/** The value Neo4j stores for a filterable prop, or undefined when it cannot store it. */
export function filterValue(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const kinds = new Set(value.map((item) => typeof item));
    if (value.length === 0) return value;
    if (kinds.size !== 1) return undefined;
    if (kinds.has('string') || kinds.has('boolean')) return value;
    if (kinds.has('number') && value.every((item) => Number.isFinite(item))) return value;
  }
  return undefined;
}

/** The map projection every node query returns as `n`. */
export const NODE_PROJECTION = 'n {.id, .labels, .json}';

/** Decodes a node projected with NODE_PROJECTION. */
export function decodeNode(value: unknown): GraphNode {
  const row = value as { id: string; labels: string[]; json: string };
  return { id: row.id, labels: [...row.labels], props: JSON.parse(row.json) as Props };
}

/**
 * A node read with its edges as `getNodeJsonWithEdges` answers it: the props serialized again
 * (they were parsed from the stored `json`, which is `JSON.stringify` of them, so the text is
 * the stored one) and the edges without their props.
 */
export function nodeJsonOf(read: NodeWithEdges | null): NodeJsonWithEdges | null {
  if (read === null) return null;
  return {
    labels: read.node.labels,
    propsJson: JSON.stringify(read.node.props),
    edges: read.edges.map((edge) => ({ type: edge.type, to: edge.to })),
  };
}
