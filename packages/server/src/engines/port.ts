/**
 * The graph engine port. Everything Trellis stores goes through it: the platform graph
 * (sites, users, members, API keys) and one graph per site (`Site.graphName`).
 *
 * Two real adapters implement it: `engines/embedded/` (libSQL, one database file per graph,
 * the default) and `engines/neo4j/` (Bolt). One contract suite (`test/engine-contract.ts`) runs
 * the same cases against both.
 *
 * Conventions every adapter keeps:
 * - Node ids are strings chosen by the caller (`site:blog`, `post:hello`, uuids). They are
 *   unique within a graph. Properties are JSON objects and round-trip exactly (nested
 *   objects, arrays, unicode, large strings); `undefined` members are dropped.
 * - Every method is async; errors the caller can act on are {@link EngineError}s with a
 *   `kind`; anything else is an engine failure.
 * - Writes are idempotent where the contract says so (mergeEdge, putNode), because the Neo4j
 *   driver retries transactions on transient errors.
 */

/** A JSON object. */
export type Props = Record<string, unknown>;

export interface GraphNode {
  id: string;
  /** One or more labels; the first is the primary label (e.g. a content type's nodeLabel). */
  labels: string[];
  props: Props;
  /**
   * Written, never read back: the text full-text search (`NodeQuery.q`) finds the node by.
   * When a create or put leaves it out, the node is indexed under every string in its props
   * (`searchableText` in engines/shared). The server gives item nodes the text of their
   * type's text fields, so bookkeeping (status, user ids, hashes) is not searchable.
   */
  searchText?: string;
  /**
   * Written, never read back, optional: `JSON.stringify(props)` when the caller has it already
   * (an import serializes each item's fields once, for its content hash and its stored props).
   * An engine may take it instead of serializing `props` again; it must be exactly that string.
   */
  propsJson?: string;
}

/**
 * New nodes that share their labels, as columns (one entry per node in each list): what an
 * import batch's new items are. `propsJson[k]` is node k's props as JSON text (exactly
 * `JSON.stringify` of its props), `searchText[k]` the text it is indexed under (see
 * {@link GraphNode.searchText}; empty: no entry). `uniqueProps[k]` holds at least every
 * property of node k that a unique constraint on `labels` names, with the value `propsJson[k]`
 * holds (an import passes the item's fields: constraints on item labels are on fields).
 */
export interface NodeRun {
  labels: string[];
  ids: string[];
  propsJson: string[];
  searchText: string[];
  uniqueProps: Props[];
}

/** What {@link Graph.createNodeRunDetached} writes, in one transaction. */
export interface DetachedNodeRun {
  run: NodeRun;
  /** Ids of nodes that must not exist (checked in the transaction before anything is written). */
  absent: string[];
  /** Appended to the audit chain in the same transaction. */
  audit: AuditEntryInput;
  /**
   * Runs of one caller that must commit in their order, each only after the one before it
   * (`seq` − 1 of the same `id`) was written: a run with `seq` > 0 whose predecessor was not
   * written (declined, failed) is declined, nothing written. An import sends its next batch
   * while the one before is still being written this way, and a declined batch holds back
   * those sent after it, which it then writes the ordinary way, in order.
   */
  chain?: { id: string; seq: number };
}

export interface GraphEdge {
  from: string;
  /** The edge label, an uppercase identifier such as `ACTED_IN`. */
  type: string;
  to: string;
  props: Props;
}

/** What {@link GraphReader.getNodeWithEdges} returns. */
export interface NodeWithEdges {
  node: GraphNode;
  /** The node's outgoing edges, by type, then target id. */
  edges: GraphEdge[];
}

/** What {@link GraphReader.getNodeJsonWithEdges} returns: a node as stored, without parsing its props. */
export interface NodeJsonWithEdges {
  labels: string[];
  /** The node's props as JSON text: exactly `JSON.stringify(props)` of what `getNode` answers. */
  propsJson: string;
  /** The node's outgoing edges as (type, target id), in `getEdges({ from: id })`'s order; no props. */
  edges: EdgeTarget[];
}

/** An outgoing edge without its props: its type and its target id. */
export interface EdgeTarget {
  type: string;
  to: string;
}

export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'contains' | 'exists';

/**
 * A filter on a top-level property. `prop` is an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
 * Semantics every engine keeps (the contract suite checks them):
 * - A property that is absent or `null` is *missing*.
 * - `eq`: same JSON type and value (value: string, number, boolean or null; `eq null` means
 *   missing). Numbers compare numerically; `1` never equals `true` or `"1"`.
 * - `ne`: the negation of `eq`, so missing properties match `ne 'x'`.
 * - `lt`/`lte`/`gt`/`gte`: value is a number or a string; only properties of the same type
 *   match (numbers numerically, strings by code point).
 * - `in`: value is an array of `eq` values; matches when any is equal.
 * - `contains`: value is a string; a case-insensitive substring of a string property
 *   (case folding is guaranteed for ASCII letters), or, on an array property, an entry equal
 *   to the value (exactly, case included).
 * - `exists`: present and not null; with `value: false`, missing.
 */
export interface PropFilter {
  prop: string;
  op: FilterOp;
  value?: unknown;
}

export interface NodeQuery {
  /** Only nodes carrying this label. */
  label: string;
  where?: PropFilter[];
  /**
   * Sort keys, applied in order, then by id; default: ascending by id. With `q` and no orderBy:
   * by relevance, then id. Missing values sort last ascending and first descending (as Cypher).
   */
  orderBy?: Array<{ prop: string; direction?: 'asc' | 'desc' }>;
  /**
   * Full-text query over the node's search text: its `searchText` when one was given, else
   * its string properties, nested ones included (all words must match, ranked by relevance;
   * words are split by `searchWords` in engines/shared). A `q` with no words does not filter.
   */
  q?: string;
  limit?: number;
  offset?: number;
}

export interface NodePage {
  nodes: GraphNode[];
  /** The exact number of nodes matching label, where and q — independent of limit and offset. */
  total: number;
}

export interface TraversalQuery {
  from: string;
  /** Follow only these edge labels; all when omitted. */
  edgeTypes?: string[];
  direction: 'out' | 'in' | 'both';
  /** 1..5 */
  depth: number;
  /** Only return nodes carrying this label. */
  label?: string;
  limit?: number;
}

export interface TraversalHit {
  node: GraphNode;
  /** Shortest distance from `from` in hops (1 = a direct neighbour). */
  depth: number;
}

export interface SimilarityQuery {
  /** Only nodes carrying this label. */
  label: string;
  vector: number[];
  k: number;
  /** Leave this node out (the item a `{% similar %}` tag is rendered for). */
  excludeId?: string;
}

export interface SimilarHit {
  node: GraphNode;
  /** Cosine similarity, 1 = same direction. */
  score: number;
}

export interface EdgeQuery {
  from?: string;
  to?: string;
  type?: string;
}

/** What mergeEdge did. `missing_endpoint`: from or to does not exist; nothing was written. */
export type MergeEdgeResult = 'created' | 'updated' | 'unchanged' | 'missing_endpoint';

export interface AuditEntryInput {
  /** Who did it: a user id, an API key id, or `system`. */
  actor: string;
  /** What was done, e.g. `content.create`. */
  action: string;
  /** What it was done to, e.g. a node id. */
  target: string;
  /** Optional details (e.g. the new content hash). */
  data?: Props;
}

export interface AuditRecord extends AuditEntryInput {
  seq: number;
  ts: string;
  prevHash: string;
  /**
   * HMAC-SHA256 hex, under the engine's audit key, of `prevHash` + canonical JSON of
   * {seq, ts, actor, action, target, data} (`auditMac` in engines/shared/audit-chain). Records
   * written before the chain was keyed carry the plain sha256 of the same text (`auditHash`).
   * Seq starts at 1; the first record's `prevHash` is 64 zeros (`GENESIS_HASH`).
   */
  hash: string;
}

/** A match on one text field of audit records: any of these exact values, or a prefix. */
export type AuditMatch = { in: string[] } | { prefix: string };

/**
 * Which audit records {@link Graph.findAudit} returns. Every given condition must hold.
 * `since`/`until` compare with the record's `ts` (ISO 8601 in UTC, as `Date#toISOString`
 * writes it): `since` inclusive, `until` exclusive.
 */
export interface AuditFilter {
  actor?: AuditMatch;
  action?: AuditMatch;
  target?: AuditMatch;
  since?: string;
  until?: string;
  /** By `seq`: `desc` (newest first, the default) or `asc`. */
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
  /**
   * `false`: do not count the matching records (the count reads every one of them; a caller
   * that wants only the newest record, such as the audit anchoring, skips it). `total` is then -1.
   */
  total?: boolean;
}

/** A page of audit records. */
export interface AuditPage {
  records: AuditRecord[];
  /** How many records match the filter, independent of limit and offset (-1 when the filter said `total: false`). */
  total: number;
}

export interface AuditVerdict {
  graph: string;
  status: 'ok' | 'broken' | 'empty';
  records: number;
  last_seq: number;
  last_hash?: string;
  verified_at: string;
  reason: string | null;
  /** The first bad record, or the first one missing below an anchored head; null when none. */
  bad_seq: number | null;
  /** The highest anchored seq checked; null when no anchor was given. */
  anchored_seq: number | null;
  /** Records up to this seq were accepted with the unkeyed hash. */
  legacy_through: number;
}

/** A head of the chain recorded outside the graph: the chain must reach `seq`, with `hash` there. */
export interface AuditAnchorCheck {
  seq: number;
  hash: string;
  /** Where the anchor was kept, for the verdict's reason (`platform store`, `build b…`). */
  source: string;
}

/** What {@link Graph.verifyAudit} checks besides the chain itself. */
export interface VerifyAuditOptions {
  /**
   * Records up to this seq may carry the unkeyed sha256 hash of chains written before the chain
   * was keyed (default 0: every record must carry the keyed hash). The server keeps it beside
   * the graph's anchor, outside the graph (docs/audit.md).
   */
  legacyThrough?: number;
  /** Heads recorded outside the graph; a chain that ends before one, or differs at it, is broken. */
  anchors?: AuditAnchorCheck[];
}

/** What {@link GraphWriter.updateNode} changes. */
export interface NodeUpdate {
  props: Props;
  labels?: string[];
  /** The node's new search text (see {@link GraphNode.searchText}). */
  searchText?: string;
}

/** Bounds on one engine call (`findNodes`, `transaction`). */
export interface CallOptions {
  /**
   * When the caller stops waiting, in epoch ms (`Date.now()`). The engine stops the work there
   * where it can and rejects with EngineError `timeout` (`details.timeoutMs`): the embedded
   * engine interrupts the statements of a `findNodes` outside a transaction (they run off the
   * main thread meanwhile); Neo4j gives the transaction the time left as its timeout (the
   * server ends it). A call given a deadline already past rejects at once. Inside a
   * transaction the transaction's own deadline applies.
   */
  deadline?: number;
}

/** Reads, available on a graph and inside a transaction. */
export interface GraphReader {
  getNode(id: string): Promise<GraphNode | null>;
  getNodes(ids: string[]): Promise<GraphNode[]>;
  findNodes(query: NodeQuery, options?: CallOptions): Promise<NodePage>;
  getEdges(query: EdgeQuery): Promise<GraphEdge[]>;
  /**
   * The node `id` and its outgoing edges (what `getEdges({ from: id })` returns, in its order:
   * by type, then target id), read together in one engine call; null when no node has the id.
   */
  getNodeWithEdges(id: string): Promise<NodeWithEdges | null>;
  /**
   * The same read with the props left as their JSON text and the edges without their props
   * (what a reader that only passes the props on as JSON needs: no parse, no re-serialization);
   * null when no node has the id. An engine may give one answer object to several calls made
   * together (the embedded engine does for one id asked in one turn): callers must not change it.
   */
  getNodeJsonWithEdges(id: string): Promise<NodeJsonWithEdges | null>;
  /** Nodes reachable from `from` (not `from` itself), ordered by depth, then id. */
  traverse(query: TraversalQuery): Promise<TraversalHit[]>;
  /** The `k` nearest by cosine, highest score first (ties by id); [] when the graph has no embeddings. */
  similar(query: SimilarityQuery): Promise<SimilarHit[]>;
  /** Whether the node has a stored embedding. */
  hasEmbedding(id: string): Promise<boolean>;
  /**
   * The stored embeddings of the given nodes, by id (nodes without one, or that do not exist,
   * are left out). The numbers are those stored (the embedded engine keeps float32).
   */
  getEmbeddings(ids: string[]): Promise<Map<string, number[]>>;
}

/** Writes, available on a graph (each call its own transaction) and inside a transaction. */
export interface GraphWriter extends GraphReader {
  /** Creates a node; EngineError `exists` when the id is taken, `unique_violation` on a unique constraint. */
  createNode(node: GraphNode): Promise<GraphNode>;
  /** Creates or replaces a node (labels, props and search text). Idempotent. */
  putNode(node: GraphNode): Promise<GraphNode>;
  /**
   * Replaces the props (and labels when given) of an existing node; EngineError `not_found`
   * otherwise. With `searchText`, the node is indexed under it from now on; without, a node
   * that was given a search text keeps it (a bookkeeping change leaves the index alone) and
   * any other node is indexed under the strings of its new props.
   */
  updateNode(id: string, update: NodeUpdate): Promise<GraphNode>;
  /** Deletes a node and its edges and embedding. Returns false when there was no such node. */
  deleteNode(id: string): Promise<boolean>;
  /**
   * Creates many nodes, all or nothing: each as {@link createNode} would (EngineError `exists`
   * when an id is taken or repeats within the batch, `unique_violation` on a unique constraint,
   * including two nodes of the batch sharing a unique value), and when any fails nothing of the
   * batch remains. Outside a transaction the batch is its own transaction; inside
   * `graph.transaction` it joins it. Returns the created nodes in input order.
   */
  createNodes(nodes: GraphNode[]): Promise<GraphNode[]>;
  /**
   * Optional: {@link createNodes} for a run of nodes given as columns ({@link NodeRun}), with
   * the same outcome (rows, index entries, errors) as `createNodes` of those nodes, without a
   * node object per row. Returns how many nodes it created. An engine without it gets
   * `createNodes`.
   */
  createNodeRun?(run: NodeRun): Promise<number>;
  /** Creates the edge or replaces its props; idempotent. One edge per (from, type, to). */
  mergeEdge(edge: GraphEdge): Promise<MergeEdgeResult>;
  /**
   * Merges many edges, each as {@link mergeEdge} would, in one transaction (or the surrounding
   * one), and returns one result per edge in input order. An edge whose endpoint does not exist
   * is `missing_endpoint` and writes nothing, without failing the others. An edge that appears
   * twice is merged in order (the second reports `unchanged` or `updated`). Idempotent.
   * Invalid input (a bad id, type or props) rejects the whole batch with `invalid_argument`.
   */
  mergeEdges(edges: GraphEdge[]): Promise<MergeEdgeResult[]>;
  deleteEdge(edge: { from: string; type: string; to: string }): Promise<boolean>;
  /** Stores (or replaces) the node's embedding. All vectors of one graph have the same dimension. */
  setEmbedding(id: string, vector: number[]): Promise<void>;
  /** Removes the node's embedding; false when it had none. */
  deleteEmbedding(id: string): Promise<boolean>;
  /**
   * Appends to the graph's audit chain, in the same transaction as the surrounding writes; the
   * record's hash is keyed with the engine's audit key.
   */
  appendAudit(entry: AuditEntryInput): Promise<AuditRecord>;
}

export interface Graph extends GraphWriter {
  readonly name: string;
  /**
   * Optional, synchronous and cheap: a value that changes with every commit to this graph by
   * any connection of any process, or null when the engine cannot tell. Two equal non-null
   * values taken at two moments mean nothing was committed between them, so a read made
   * between them still holds (the access epoch's watch skips its read on it,
   * auth/access-epoch.ts). Embedded: the WAL index header of the graph's file.
   */
  commitMarker?(): string | null;
  /**
   * Optional: one transaction of its own that creates a run of new nodes (as
   * {@link GraphWriter.createNodeRun}: the same rows, rids and index entries) and appends one
   * audit entry, with its statements and its commit executed off the calling thread, so the
   * caller's thread can go on (an import prepares its next batch meanwhile). Serialized with the
   * graph's other writes, as a transaction is. Resolves `written` once committed; `declined`
   * when a node of `absent` exists, or the run meets a taken id or a held unique value: then
   * nothing was written and the caller writes the batch the ordinary way (a transaction with
   * `createNodeRun`), which names the conflict. Other failures reject, nothing written — but
   * for the writer ending while the run is in flight (its thread exits): the run is then
   * whole or absent. Embedded engine only (its writer is a worker thread with a connection of
   * its own).
   */
  createNodeRunDetached?(batch: DetachedNodeRun): Promise<'written' | 'declined'>;
  /**
   * Runs `fn` in one all-or-nothing transaction: when it throws, nothing it wrote remains.
   * Transactions on one graph are serialized. Reads made through `tx` see its writes.
   * With `options.deadline`, an engine that can bound a transaction (Neo4j) gives it the time
   * left as its timeout.
   */
  transaction<T>(fn: (tx: GraphWriter) => Promise<T>, options?: CallOptions): Promise<T>;
  /** Declares that `prop` is unique among nodes labelled `label` (idempotent). */
  ensureUnique(label: string, prop: string): Promise<void>;
  /** Reads the audit chain in sequence order. */
  auditRecords(options?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]>;
  /** The audit records matching `filter`, a page at a time, with their total. */
  findAudit(filter: AuditFilter): Promise<AuditPage>;
  /**
   * Recomputes the chain under the engine's audit key and reports `ok`, `empty` or `broken`
   * with the reason and the first bad seq, checking the anchors of `options` too.
   */
  verifyAudit(options?: VerifyAuditOptions): Promise<AuditVerdict>;
}

export interface ProbeResult {
  reachable: boolean;
  probeMs: number | null;
  error: string | null;
}

export interface ProcedureListing {
  /** Which introspection probe worked. */
  via: string;
  procedures: Array<{ name: string; description?: string; mode?: string }>;
  attempts: Array<{ via: string; ok: boolean; error?: string }>;
}

export interface GraphEngine {
  readonly name: 'embedded' | 'neo4j';
  /** Connects / opens storage. Nothing connects before init. */
  init(): Promise<void>;
  close(): Promise<void>;
  /** Where the engine lives, for /health/detail (a directory or a bolt URI without credentials). */
  endpoint(): string;
  /**
   * Creates a graph; EngineError `exists` when it already exists. Graph names are letters,
   * digits, `-` and `_` (`assertGraphName` in engines/shared/identifiers); others are
   * `invalid_argument`.
   */
  createGraph(name: string): Promise<Graph>;
  /** Opens an existing graph, or null (also for a name that is not a valid graph name). */
  openGraph(name: string): Promise<Graph | null>;
  /** Removes a graph and all its data. Returns false when there was none (or the name is invalid). */
  dropGraph(name: string): Promise<boolean>;
  listGraphs(): Promise<string[]>;
  /**
   * The operations or procedures the engine offers (for /maintenance/engine/procedures).
   * When no introspection query works, rejects with EngineError `unavailable` whose
   * `details.attempts` lists what was tried.
   */
  procedures(): Promise<ProcedureListing>;
  /** Checks the engine answers within `timeoutMs`; never throws. */
  probe(timeoutMs: number): Promise<ProbeResult>;
}

export type EngineErrorKind =
  | 'exists'
  | 'not_found'
  | 'unique_violation'
  | 'invalid_argument'
  | 'timeout'
  | 'unavailable';

/** An engine failure the caller can act on. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    readonly details: Props = {},
  ) {
    super(message);
  }
}

export function isEngineError(value: unknown, kind?: EngineErrorKind): value is EngineError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'EngineError' &&
    (kind === undefined || (value as EngineError).kind === kind)
  );
}
