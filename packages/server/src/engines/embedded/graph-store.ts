import { canonicalJson } from '@trelliscms/core';
import type {
  AuditEntryInput,
  AuditFilter,
  AuditPage,
  AuditRecord,
  EdgeQuery,
  EdgeTarget,
  GraphEdge,
  GraphNode,
  MergeEdgeResult,
  NodeJsonWithEdges,
  NodePage,
  NodeQuery,
  NodeRun,
  NodeUpdate,
  NodeWithEdges,
  Props,
  SimilarHit,
  SimilarityQuery,
  TraversalHit,
  TraversalQuery,
} from '../port';
import { EngineError } from '../port';
import { auditMac, GENESIS_HASH } from '../shared/audit-chain';
import { assertAuditFilter } from '../shared/audit-filter';
import {
  assertCount,
  assertIdentifier,
  assertLabels,
  assertNodeId,
  assertProps,
  assertSearchText,
} from '../shared/identifiers';
import { assertNodeQuery } from '../shared/node-query';
import { searchableText } from '../shared/search-text';
import type { SqlConnection, SqlValue } from './connection';
import { compileAuditQuery } from './find-audit-sql';
import { compileNodeQuery } from './find-nodes-sql';
import { LABELLED } from './schema';

/** Unique constraints of one graph, label -> props; shared by the graph's connections. */
export type UniqueConstraints = Map<string, string[]>;

/** Reads a graph's unique constraints into `into` (cleared first), in (label, prop) order. */
export function readUniqueConstraints(conn: SqlConnection, into: UniqueConstraints): void {
  into.clear();
  for (const [label, prop] of conn.rows('SELECT label, prop FROM unique_constraints ORDER BY label, prop')) {
    const list = into.get(label as string) ?? [];
    list.push(prop as string);
    into.set(label as string, list);
  }
}

const MAX_DIMENSION = 65_536;

const SELECT_NODE = 'SELECT id, labels, props FROM nodes WHERE id = ?';
/**
 * A node with its outgoing edges in one statement: the edges as one JSON array of
 * `[type, to, props]` in the order SQLite scans them, the primary key's (from_rid, tid,
 * to_rid): by the type's tid, then by the target's rid, not by name and id. The reads sort them by (type, target
 * id) in JavaScript when they are not in that order already ({@link inKeyOrder}); a node has
 * few edges, and the usual single type of edges to nodes made in id order needs no sort.
 */
const SELECT_NODE_WITH_EDGES = `SELECT n.labels, n.props,
  (SELECT json_group_array(json_array(y.name, t.id, json(e.props)))
     FROM edges e CROSS JOIN edge_types y ON y.tid = e.tid CROSS JOIN nodes t ON t.rid = e.to_rid
     WHERE e.from_rid = n.rid)
  FROM nodes n WHERE n.id = ?`;
/**
 * The node row and its edges' (type, target) for {@link GraphStore.getNodeJsonWithEdges}: the
 * props column as stored, no edge props (SQLite neither parses nor re-serializes them).
 */
const SELECT_NODE_JSON_WITH_EDGES = `SELECT n.labels, n.props,
  (SELECT json_group_array(json_array(y.name, t.id))
     FROM edges e CROSS JOIN edge_types y ON y.tid = e.tid CROSS JOIN nodes t ON t.rid = e.to_rid
     WHERE e.from_rid = n.rid)
  FROM nodes n WHERE n.id = ?`;

/** A UTF-16 code unit mapped so that code-unit order is code-point order (surrogates above U+FFFF's units). */
function pointOrder(unit: number): number {
  return unit >= 0xd800 ? (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000) : unit;
}

/** SQLite's BINARY collation of two strings (UTF-8 bytes, i.e. code points): negative, 0, positive. */
export function compareBinary(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return pointOrder(x) - pointOrder(y);
  }
  return a.length - b.length;
}

/** Whether `[type, to, ...]` rows are strictly in (type, to) BINARY order. */
function inKeyOrder(rows: ReadonlyArray<readonly [string, string, ...unknown[]]>): boolean {
  for (let i = 1; i < rows.length; i += 1) {
    const [type, to] = rows[i - 1] as readonly [string, string];
    const [nextType, nextTo] = rows[i] as readonly [string, string];
    if (!(type === nextType ? compareBinary(to, nextTo) < 0 : compareBinary(type, nextType) < 0))
      return false;
  }
  return true;
}

/** Whether `[from, type, to, ...]` rows are strictly in (from, type, to) BINARY order. */
function inIdOrder(rows: ReadonlyArray<readonly [string, string, string, ...unknown[]]>): boolean {
  for (let i = 1; i < rows.length; i += 1) {
    const a = rows[i - 1]!;
    const b = rows[i]!;
    const order = compareBinary(a[0], b[0]) || compareBinary(a[1], b[1]) || compareBinary(a[2], b[2]);
    if (order >= 0) return false;
  }
  return true;
}

/** `[type, to, ...]` rows in (type, to) BINARY order, the order the edge reads promise. */
function sortedEdgeRows<T extends readonly [string, string, ...unknown[]]>(rows: T[]): T[] {
  if (inKeyOrder(rows)) return rows;
  return rows.sort((a, b) => compareBinary(a[0], b[0]) || compareBinary(a[1], b[1]));
}
const SELECT_RID = 'SELECT rid, labels, text_given FROM nodes WHERE id = ?';

/** Labels as JSON; they are identifiers, so the usual single label needs no serializer. */
function labelsJson(labels: string[]): string {
  return labels.length === 1 ? `["${labels[0]}"]` : JSON.stringify(labels);
}

/** The text a node is indexed under: its search text when given, else the strings of its props. */
function textOf(node: GraphNode): string {
  return node.searchText ?? searchableText(node.props);
}

/** A node as reads return it: no search text. */
/** The props' JSON as stored: the caller's `propsJson` when given (see GraphNode). */
function propsText(node: GraphNode): string {
  return node.propsJson ?? JSON.stringify(node.props);
}

function bare(node: GraphNode): GraphNode {
  return { id: node.id, labels: node.labels, props: node.props };
}

function toNode(row: unknown[]): GraphNode {
  return {
    id: row[0] as string,
    labels: JSON.parse(row[1] as string) as string[],
    props: JSON.parse(row[2] as string) as Props,
  };
}

function toAuditRecord(row: unknown[]): AuditRecord {
  const record: AuditRecord = {
    seq: row[0] as number,
    ts: row[1] as string,
    actor: row[2] as string,
    action: row[3] as string,
    target: row[4] as string,
    prevHash: row[6] as string,
    hash: row[7] as string,
  };
  if (row[5] !== null) record.data = JSON.parse(row[5] as string) as Props;
  return record;
}

function exists(id: string): EngineError {
  return new EngineError('exists', `A node with id ${JSON.stringify(id)} already exists`, { id });
}

/** A unique-constraint key for a property value: its canonical JSON, so 1 and "1" differ. */
function uniqueKey(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  // canonicalJson writes a string as JSON.stringify does; the usual unique value is one (a slug).
  return typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
}

/** The largest number of rows one multi-row INSERT carries; smaller statements take the rest. */
const ROW_CHUNKS = [500, 100, 20, 5, 1];

const FTS_INSERT = 'INSERT INTO nodes_fts (rowid, body) VALUES ';
const UNIQUE_INSERT = 'INSERT INTO unique_values (label, prop, value, rid) VALUES ';
/** Records that nodes of a primary label carry a further label (see schema.ts). */
const CARRIERS_INSERT = 'INSERT OR IGNORE INTO label_carriers (label, primary_label) VALUES ';
/**
 * Edge writes name the ends by id and the type by name; the statement looks up the ends' rids
 * and the type's tid (schema.ts `edgesTable`, `EDGE_TYPES`), and a row whose end is not a node
 * joins nothing, so it is not written. The types are entered first ({@link GraphStore.typeIds}).
 */
const EDGES_ENDS_JOIN =
  ' v CROSS JOIN nodes f ON f.id = v.column1 CROSS JOIN edge_types y ON y.name = v.column2 CROSS JOIN nodes t ON t.id = v.column3';
/** Writes the rows (from, type, to, props), replacing the props of an edge that exists. */
const EDGES_UPSERT_HEAD =
  'INSERT INTO edges (from_rid, tid, to_rid, props) SELECT f.rid, y.tid, t.rid, v.column4 FROM (VALUES ';
const EDGES_UPSERT_TAIL = `)${EDGES_ENDS_JOIN} WHERE true ON CONFLICT (from_rid, tid, to_rid) DO UPDATE SET props = excluded.props`;
/**
 * The first try of mergeEdges: inserts the rows that do not exist yet and whose two ends do
 * (see there). The ends are looked up in the same statement, so the usual batch (every end
 * there, no edge yet) is one statement per row chunk, without a separate endpoint read.
 */
const EDGES_INSERT_NEW =
  'INSERT OR IGNORE INTO edges (from_rid, tid, to_rid, props) SELECT f.rid, y.tid, t.rid, v.column4 FROM (VALUES ';
const EDGES_INSERT_NEW_TAIL = `)${EDGES_ENDS_JOIN}`;
/**
 * EDGES_INSERT_NEW for rows that share their type and props (the usual import: one label, no
 * props): those two (the type's tid) are bound once per statement (?1, ?2), each row binds its
 * two ends only.
 */
const EDGES_INSERT_NEW_SHARED =
  'INSERT OR IGNORE INTO edges (from_rid, tid, to_rid, props) SELECT f.rid, ?1, t.rid, ?2 FROM (VALUES ';
const EDGES_INSERT_NEW_SHARED_TAIL =
  ') v CROSS JOIN nodes f ON f.id = v.column1 CROSS JOIN nodes t ON t.id = v.column2';
/** The rid of the node of id ?. */
const RID_OF = '(SELECT rid FROM nodes WHERE id = ?)';
/** The tid of the edge type named ? (NULL when no edge ever had it: equal to no row's). */
const TID_OF = '(SELECT tid FROM edge_types WHERE name = ?)';

/**
 * EDGES_INSERT_NEW_SHARED over `edges` (all of type `tid` and props `json`) in the ROW_CHUNKS
 * statements, each statement's parameters (the shared two, then each row's ends) made at once.
 * Returns the rows inserted.
 */
function insertSharedEdges(
  conn: SqlConnection,
  edges: ReadonlyArray<{ from: string; to: string }>,
  tid: number,
  json: string,
): number {
  let done = 0;
  let changes = 0;
  for (const size of ROW_CHUNKS) {
    while (edges.length - done >= size) {
      const params: SqlValue[] = new Array(2 + size * 2);
      params[0] = tid;
      params[1] = json;
      for (let i = 0; i < size; i += 1) {
        const edge = edges[done + i]!;
        params[2 + i * 2] = edge.from;
        params[3 + i * 2] = edge.to;
      }
      changes += conn.run(
        valuesSql(EDGES_INSERT_NEW_SHARED, size, 2, EDGES_INSERT_NEW_SHARED_TAIL),
        params,
      ).changes;
      done += size;
    }
  }
  return changes;
}

/** `INSERT ... VALUES (?, ?), (?, ?) ...` texts by (head, rows, width), built once. */
const multiRowSql = new Map<string, string>();

function valuesSql(head: string, rows: number, width: number, tail = ''): string {
  const key = `${head}|${rows}|${width}|${tail}`;
  let sql = multiRowSql.get(key);
  if (sql === undefined) {
    const row = `(${new Array(width).fill('?').join(', ')})`;
    sql = head + new Array(rows).fill(row).join(', ') + tail;
    multiRowSql.set(key, sql);
  }
  return sql;
}

/** One statement and its parameters (see {@link nodeRunStatements}). */
export type SqlStatement = [sql: string, params: SqlValue[]];

/**
 * The statements inserting `params` (rows of `width` values, flattened) as multi-row statements
 * of the sizes in ROW_CHUNKS, so a few cached statements cover any count.
 */
function rowStatements(
  head: string,
  params: SqlValue[],
  width: number,
  tail = '',
  shared: SqlValue[] = [],
): SqlStatement[] {
  const rows = params.length / width;
  const statements: SqlStatement[] = [];
  let done = 0;
  for (const size of ROW_CHUNKS) {
    while (rows - done >= size) {
      const start = done * width;
      const chunk = params.slice(start, start + size * width);
      statements.push([
        valuesSql(head, size, width, tail),
        shared.length > 0 ? [...shared, ...chunk] : chunk,
      ]);
      done += size;
    }
  }
  return statements;
}

/** Runs {@link rowStatements} and returns the rows changed. */
function insertRows(
  conn: SqlConnection,
  head: string,
  params: SqlValue[],
  width: number,
  tail = '',
  shared: SqlValue[] = [],
): number {
  let changes = 0;
  for (const [sql, chunk] of rowStatements(head, params, width, tail, shared))
    changes += conn.run(sql, chunk).changes;
  return changes;
}

/**
 * The statements inserting one constraint's unique values: `params` is its label and prop,
 * then (value, rid) per row. Label and prop are bound once per statement (`?1, ?2`): libsql
 * converts and copies every bound string, and these two are the same on every row
 * (bench/unique-params-micro.ts).
 */
function uniqueRunStatements(params: SqlValue[], statements: SqlStatement[]): void {
  const rows = (params.length - 2) / 2;
  let done = 0;
  for (const size of ROW_CHUNKS) {
    while (rows - done >= size) {
      const start = 2 + done * 2;
      const chunk: SqlValue[] = new Array(2 + size * 2);
      chunk[0] = params[0] as SqlValue;
      chunk[1] = params[1] as SqlValue;
      for (let i = 0; i < size * 2; i++) chunk[2 + i] = params[start + i] as SqlValue;
      statements.push([uniqueRunSql(size), chunk]);
      done += size;
    }
  }
}

const uniqueRunSqls = new Map<number, string>();

/** `INSERT INTO unique_values ... VALUES (?1, ?2, ?3, ?4), (?1, ?2, ?5, ?6), ...` of `rows` rows. */
function uniqueRunSql(rows: number): string {
  let sql = uniqueRunSqls.get(rows);
  if (sql === undefined) {
    const values = Array.from({ length: rows }, (_, k) => `(?1, ?2, ?${3 + 2 * k}, ?${4 + 2 * k})`);
    sql = UNIQUE_INSERT + values.join(', ');
    uniqueRunSqls.set(rows, sql);
  }
  return sql;
}

/**
 * Multi-row statements for a run of nodes with consecutive rids, built once per shape.
 * Parameters cost more than the SQL around them (libsql converts and copies each string), so
 * the rid is `?1 + k` and, when the run shares its labels, label and labels are bound once:
 * - `shared`: ?1 base rid, ?2 label, ?3 labels, then id and props per node;
 * - `mixed`: ?1 base rid, then id, label, labels and props per node;
 * - `text`: ?1 base rid, then the full-text body per node.
 * `textGiven` is the `text_given` of every node of the run (a literal, so it costs no parameter).
 */
const runSql = new Map<string, string>();

export function nodeRunSql(kind: 'shared' | 'mixed' | 'text', rows: number, textGiven = false): string {
  const key = `${kind}|${rows}|${textGiven}`;
  let sql = runSql.get(key);
  if (sql === undefined) {
    const given = textGiven ? 1 : 0;
    const values = Array.from({ length: rows }, (_, k) => {
      if (kind === 'shared') return `(?1 + ${k}, ?${4 + 2 * k}, ?2, ?3, ?${5 + 2 * k}, ${given})`;
      if (kind === 'mixed') {
        const at = 2 + 4 * k;
        return `(?1 + ${k}, ?${at}, ?${at + 1}, ?${at + 2}, ?${at + 3}, ${given})`;
      }
      return `(?1 + ${k}, ?${2 + k})`;
    });
    sql =
      kind === 'text'
        ? `INSERT INTO nodes_fts (rowid, body) VALUES ${values.join(', ')}`
        : `INSERT INTO nodes (rid, id, label, labels, props, text_given) VALUES ${values.join(', ')}`;
    runSql.set(key, sql);
  }
  return sql;
}

/**
 * Checks a NodeRun as createNodes checks each node (ids, labels, props, search text; an id
 * repeated in the run is `exists`) and returns its length.
 */
function assertNodeRun(run: NodeRun): number {
  if (typeof run !== 'object' || run === null)
    throw new EngineError('invalid_argument', 'A node run is an object');
  assertLabels(run.labels);
  const { ids, propsJson, searchText, uniqueProps } = run;
  if (
    !Array.isArray(ids) ||
    !Array.isArray(propsJson) ||
    !Array.isArray(searchText) ||
    !Array.isArray(uniqueProps) ||
    propsJson.length !== ids.length ||
    searchText.length !== ids.length ||
    uniqueProps.length !== ids.length
  ) {
    throw new EngineError(
      'invalid_argument',
      'A node run has lists of ids, propsJson, searchText and uniqueProps of one length',
    );
  }
  const seen = new Set<string>();
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    assertNodeId(id);
    if (seen.has(id)) throw exists(id);
    seen.add(id);
    if (typeof propsJson[k] !== 'string')
      throw new EngineError('invalid_argument', 'propsJson must be the JSON text of props');
    assertSearchText(searchText[k]);
    assertProps(uniqueProps[k]);
  }
  return ids.length;
}

/**
 * One string per (from, type, to): the length of `from` first, so ids holding any character
 * cannot run into each other (a type is an identifier, without NUL).
 */
function edgeKey(edge: { from: string; type: string; to: string }): string {
  return `${edge.from.length}:${edge.from}${edge.type}\u0000${edge.to}`;
}

/** canonicalJson of edge props; the usual empty props without the serializer. */
function propsCanonicalJson(props: Props): string {
  for (const _ in props) return canonicalJson(props);
  return '{}';
}

/** A UNIQUE or PRIMARY KEY constraint failed: a taken node id or a held unique value. */
function isConstraintConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

function isIdConflict(error: unknown): boolean {
  return (
    (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String(error).includes('nodes.id')
  );
}

/**
 * The statements of the full-text entries of a run of `size` new nodes from rid `base`
 * (`texts[k + 1]` is node k's text): one statement when every node has text, else (rid, text)
 * pairs for those that do (nodes without text get no entry, as createNode).
 */
function runTextStatements(
  base: number,
  size: number,
  texts: SqlValue[],
  allText: boolean,
  statements: SqlStatement[],
): void {
  if (allText) {
    statements.push([nodeRunSql('text', size), texts]);
    return;
  }
  const pairs: SqlValue[] = [];
  for (let k = 0; k < size; k++) {
    const text = texts[k + 1] as string;
    if (text.length > 0) pairs.push(base + k, text);
  }
  statements.push(...rowStatements(FTS_INSERT, pairs, 2));
}

/**
 * The statements recording that nodes of `labels[0]` carry each further label
 * (label_carriers); the node's labels themselves are in its row.
 */
function carrierStatements(labels: string[], statements: SqlStatement[]): void {
  const rows: SqlValue[] = [];
  for (let i = 1; i < labels.length; i++) rows.push(labels[i] as string, labels[0] as string);
  statements.push(...rowStatements(CARRIERS_INSERT, rows, 2));
}

/**
 * The statements writing nodes [at, at + size) of a NodeRun with rids from `base` on: one for
 * the rows, the carriers of their further labels, one per unique constraint of their labels
 * (`uniques`), one for their full-text entries.
 */
export function nodeRunStatements(
  run: NodeRun,
  at: number,
  size: number,
  base: number,
  uniques: UniqueConstraints,
): SqlStatement[] {
  const labels = run.labels;
  const statements: SqlStatement[] = [];
  const params: SqlValue[] = new Array(3 + 2 * size);
  params[0] = base;
  params[1] = labels[0] as string;
  params[2] = labelsJson(labels);
  const texts: SqlValue[] = new Array(1 + size);
  texts[0] = base;
  let allText = true;
  for (let k = 0; k < size; k++) {
    params[3 + 2 * k] = run.ids[at + k] as string;
    params[4 + 2 * k] = run.propsJson[at + k] as string;
    const text = run.searchText[at + k] as string;
    if (text.length === 0) allText = false;
    texts[1 + k] = text;
  }
  statements.push([nodeRunSql('shared', size, true), params]);
  if (labels.length > 1) carrierStatements(labels, statements);
  if (uniques.size > 0) {
    for (const label of labels) {
      for (const prop of uniques.get(label) ?? []) {
        // one constraint's rows at a time: label and prop bound once per statement (?1, ?2)
        const pairs: SqlValue[] = [label, prop];
        for (let k = 0; k < size; k++) {
          const key = uniqueKey((run.uniqueProps[at + k] as Props)[prop]);
          if (key !== null) pairs.push(key, base + k);
        }
        uniqueRunStatements(pairs, statements);
      }
    }
  }
  runTextStatements(base, size, texts, allText, statements);
  return statements;
}

/**
 * The statements of a whole NodeRun whose first node gets rid `afterRid + 1` (the largest rid
 * in use, as createNodeRun reads it): {@link nodeRunStatements} of its ROW_CHUNKS-sized parts.
 * The run must have passed {@link checkNodeRun}.
 */
export function nodeRunAllStatements(
  run: NodeRun,
  afterRid: number,
  uniques: UniqueConstraints,
): SqlStatement[] {
  const count = run.ids.length;
  const statements: SqlStatement[] = [];
  let rid = afterRid;
  let at = 0;
  for (const size of ROW_CHUNKS) {
    while (count - at >= size) {
      statements.push(...nodeRunStatements(run, at, size, rid + 1, uniques));
      at += size;
      rid += size;
    }
  }
  return statements;
}

/** Checks a NodeRun as createNodeRun does (EngineError `invalid_argument`, or `exists` for an id repeated in the run); returns its length. */
export function checkNodeRun(run: NodeRun): number {
  return assertNodeRun(run);
}

/**
 * The audit record appended after `last` (the chain's last row as `SELECT seq, hash`, or
 * undefined for an empty chain) and the parameters of its INSERT ({@link AUDIT_INSERT}),
 * keyed with `auditKey`. Throws `invalid_argument` for an entry without its strings.
 */
export function auditRow(
  auditKey: Uint8Array,
  last: unknown[] | undefined,
  entry: AuditEntryInput,
): { record: AuditRecord; params: SqlValue[] } {
  for (const key of ['actor', 'action', 'target'] as const) {
    if (typeof entry?.[key] !== 'string') {
      throw new EngineError('invalid_argument', `An audit entry needs a string ${key}`);
    }
  }
  if (entry.data !== undefined) assertProps(entry.data, 'audit data');
  const seq = last === undefined ? 1 : (last[0] as number) + 1;
  const prevHash = last === undefined ? GENESIS_HASH : (last[1] as string);
  // Stored as canonical JSON, so what is read back hashes exactly as what was written.
  const data = entry.data === undefined ? undefined : (JSON.parse(canonicalJson(entry.data)) as Props);
  const record: AuditRecord = {
    seq,
    ts: new Date().toISOString(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    ...(data === undefined ? {} : { data }),
    prevHash,
    hash: '',
  };
  record.hash = auditMac(auditKey, prevHash, record);
  return {
    record,
    params: [
      seq,
      record.ts,
      record.actor,
      record.action,
      record.target,
      data === undefined ? null : canonicalJson(data),
      prevHash,
      record.hash,
    ],
  };
}

/** The chain's last row (seq, hash). */
export const AUDIT_LAST = 'SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1';
/** Appends an audit record (parameters: {@link auditRow}). */
export const AUDIT_INSERT =
  'INSERT INTO audit (seq, ts, actor, action, target, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/**
 * The graph operations as synchronous calls on one connection. The graph wraps them in
 * promises and transactions; the store itself never begins or commits.
 */
export class GraphStore {
  /**
   * Full-text entries of nodes written in the open transaction, as rid, text, rid, text...;
   * written by flush() in multi-row statements.
   */
  private pendingText: SqlValue[] = [];

  constructor(
    private readonly conn: SqlConnection,
    private readonly uniques: UniqueConstraints,
    /** The key of the audit chain's HMAC (engines/shared/audit-key). */
    private readonly auditKey: Uint8Array,
  ) {}

  /**
   * Writes the pending full-text entries. The graph calls it before COMMIT; the store calls it
   * before anything that reads or replaces full-text entries. FTS5 indexes rows it gets in
   * one statement in one go, so few multi-row statements cost much less than one per node.
   */
  flush(): void {
    const pending = this.pendingText;
    if (pending.length === 0) return;
    this.pendingText = [];
    insertRows(this.conn, FTS_INSERT, pending, 2);
  }

  /** Forgets pending full-text entries (the transaction rolled back). */
  discard(): void {
    this.pendingText = [];
  }

  // ---- reads ----

  getNode(id: string): GraphNode | null {
    if (typeof id !== 'string') return null;
    const row = this.conn.row(SELECT_NODE, [id]);
    return row === undefined ? null : toNode(row);
  }

  getNodeWithEdges(id: string): NodeWithEdges | null {
    if (typeof id !== 'string') return null;
    const row = this.conn.row(SELECT_NODE_WITH_EDGES, [id]);
    if (row === undefined) return null;
    const rows = sortedEdgeRows(JSON.parse(row[2] as string) as Array<[string, string, Props]>);
    const edges: GraphEdge[] = [];
    for (const [type, to, props] of rows) edges.push({ from: id, type, to, props });
    return {
      node: {
        id,
        labels: JSON.parse(row[0] as string) as string[],
        props: JSON.parse(row[1] as string) as Props,
      },
      edges,
    };
  }

  /** {@link getNodeWithEdges} with the props as stored (their JSON text) and no edge props. */
  getNodeJsonWithEdges(id: string): NodeJsonWithEdges | null {
    if (typeof id !== 'string') return null;
    const row = this.conn.row(SELECT_NODE_JSON_WITH_EDGES, [id]);
    if (row === undefined) return null;
    const rows = sortedEdgeRows(JSON.parse(row[2] as string) as Array<[string, string]>);
    const edges: EdgeTarget[] = [];
    for (const [type, to] of rows) edges.push({ type, to });
    return { labels: JSON.parse(row[0] as string) as string[], propsJson: row[1] as string, edges };
  }

  getNodes(ids: string[]): GraphNode[] {
    if (!Array.isArray(ids) || ids.length === 0) return [];
    const wanted = ids.filter((id) => typeof id === 'string');
    const rows = this.conn.rows(
      'SELECT id, labels, props FROM nodes WHERE id IN (SELECT value FROM json_each(?))',
      [JSON.stringify(wanted)],
    );
    const byId = new Map(rows.map((row) => [row[0] as string, row]));
    const nodes: GraphNode[] = [];
    const seen = new Set<string>();
    for (const id of wanted) {
      const row = byId.get(id);
      if (row === undefined || seen.has(id)) continue;
      seen.add(id);
      nodes.push(toNode(row));
    }
    return nodes;
  }

  findNodes(query: NodeQuery): NodePage {
    assertNodeQuery(query);
    this.flush();
    const compiled = compileNodeQuery(query);
    const total = this.conn.row(compiled.countSql, compiled.countParams)?.[0] as number;
    const nodes = query.limit === 0 ? [] : this.conn.rows(compiled.sql, compiled.params).map(toNode);
    return { nodes, total };
  }

  getEdges(query: EdgeQuery): GraphEdge[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    // Fixed fragments chosen by which fields are set, so each shape is one cached statement.
    if (query?.from !== undefined) {
      where.push(`e.from_rid = ${RID_OF}`);
      params.push(String(query.from));
    }
    if (query?.to !== undefined) {
      where.push(`e.to_rid = ${RID_OF}`);
      params.push(String(query.to));
    }
    if (query?.type !== undefined) {
      where.push(`e.tid = ${TID_OF}`);
      params.push(String(query.type));
    }
    const filter = where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`;
    // In (from, type, to) id order: the rows come in the order of the rids (the keys), so they
    // are sorted here when they are not in it already (SQLite's sorter costs more per call).
    const rows = this.conn.rows(
      `SELECT f.id, y.name, t.id, e.props FROM edges e JOIN edge_types y ON y.tid = e.tid
       JOIN nodes f ON f.rid = e.from_rid JOIN nodes t ON t.rid = e.to_rid${filter}`,
      params,
    ) as Array<[string, string, string, string]>;
    if (!inIdOrder(rows)) {
      rows.sort(
        (a, b) => compareBinary(a[0], b[0]) || compareBinary(a[1], b[1]) || compareBinary(a[2], b[2]),
      );
    }
    return rows.map((row) => ({
      from: row[0] as string,
      type: row[1] as string,
      to: row[2] as string,
      props: JSON.parse(row[3] as string) as Props,
    }));
  }

  traverse(query: TraversalQuery): TraversalHit[] {
    assertNodeId(query?.from, 'traversal start');
    if (!['out', 'in', 'both'].includes(query.direction)) {
      throw new EngineError('invalid_argument', 'direction must be out, in or both');
    }
    if (!Number.isInteger(query.depth) || query.depth < 1 || query.depth > 5) {
      throw new EngineError('invalid_argument', 'depth must be an integer from 1 to 5');
    }
    for (const type of query.edgeTypes ?? []) assertIdentifier(type, 'edge type');
    if (query.label !== undefined) assertIdentifier(query.label, 'label');
    assertCount(query.limit, 'limit');

    // The types' tids, read once for the walk (a type no edge ever had has none: no step matches).
    const types =
      query.edgeTypes === undefined
        ? null
        : JSON.stringify(
            this.conn
              .rows('SELECT tid FROM edge_types WHERE name IN (SELECT value FROM json_each(?))', [
                JSON.stringify(query.edgeTypes),
              ])
              .map((row) => row[0] as number),
          );
    const typeFilter = types === null ? '' : ' AND tid IN (SELECT value FROM json_each(?))';
    const steps: string[] = [];
    // The walk goes by rid (the edges' keys); the nodes reached are read by rid at the end.
    if (query.direction !== 'in') {
      steps.push(`SELECT to_rid FROM edges WHERE from_rid IN (SELECT value FROM json_each(?))${typeFilter}`);
    }
    if (query.direction !== 'out') {
      steps.push(`SELECT from_rid FROM edges WHERE to_rid IN (SELECT value FROM json_each(?))${typeFilter}`);
    }
    const stepSql = steps.join(' UNION ');

    const start = this.conn.row('SELECT rid FROM nodes WHERE id = ?', [query.from]);
    if (start === undefined) return [];
    const startRid = start[0] as number;
    const depthOf = new Map<number, number>([[startRid, 0]]);
    let frontier = [startRid];
    for (let depth = 1; depth <= query.depth && frontier.length > 0; depth++) {
      const frontierJson = JSON.stringify(frontier);
      const params: SqlValue[] = [];
      for (let i = 0; i < steps.length; i++) {
        params.push(frontierJson);
        if (types !== null) params.push(types);
      }
      const next: number[] = [];
      for (const row of this.conn.rows(stepSql, params)) {
        const rid = row[0] as number;
        if (!depthOf.has(rid)) {
          depthOf.set(rid, depth);
          next.push(rid);
        }
      }
      frontier = next;
    }
    depthOf.delete(startRid);

    const hits: TraversalHit[] = [];
    const reached = this.conn.rows(
      'SELECT rid, id, labels, props FROM nodes WHERE rid IN (SELECT value FROM json_each(?))',
      [JSON.stringify([...depthOf.keys()])],
    );
    for (const row of reached) {
      const node = toNode(row.slice(1));
      if (query.label !== undefined && !node.labels.includes(query.label)) continue;
      hits.push({ node, depth: depthOf.get(row[0] as number) as number });
    }
    hits.sort((a, b) => a.depth - b.depth || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
    return query.limit === undefined ? hits : hits.slice(0, query.limit);
  }

  similar(query: SimilarityQuery): SimilarHit[] {
    assertIdentifier(query?.label, 'label');
    if (query?.k === undefined) throw new EngineError('invalid_argument', 'k is required');
    assertCount(query.k, 'k', 10_000);
    if (query.excludeId !== undefined) assertNodeId(query.excludeId, 'excludeId');
    const vector = this.assertVector(query.vector);
    if (query.k === 0) return [];
    const dimension = this.dimension();
    if (dimension === null) return [];
    if (dimension !== vector.length) {
      throw new EngineError(
        'invalid_argument',
        `The query vector has ${vector.length} dimensions; this graph's embeddings have ${dimension}`,
      );
    }
    // Exact top-k: a scan of the label's embeddings, so a label or exclusion never starves the result.
    const rows = this.conn.rows(
      `SELECT n.id, n.labels, n.props, vector_distance_cos(e.vec, vector32(?)) AS d
       FROM embeddings e JOIN nodes n ON n.rid = e.rid
       WHERE e.rid IN ${LABELLED} AND n.id IS NOT ? AND d IS NOT NULL
       ORDER BY d, n.id LIMIT ?`,
      [JSON.stringify(vector), query.label, query.label, query.excludeId ?? null, query.k],
    );
    return rows.map((row) => ({ node: toNode(row), score: 1 - (row[3] as number) }));
  }

  hasEmbedding(id: string): boolean {
    return (
      this.conn.row('SELECT 1 FROM nodes n JOIN embeddings e ON e.rid = n.rid WHERE n.id = ?', [
        String(id),
      ]) !== undefined
    );
  }

  getEmbeddings(ids: string[]): Map<string, number[]> {
    if (!Array.isArray(ids)) throw new EngineError('invalid_argument', 'ids must be an array');
    const out = new Map<string, number[]>();
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500).map(String);
      if (chunk.length === 0) continue;
      const rows = this.conn.rows(
        `SELECT n.id, vector_extract(e.vec) FROM nodes n JOIN embeddings e ON e.rid = n.rid
         WHERE n.id IN (${chunk.map(() => '?').join(',')})`,
        chunk,
      );
      for (const row of rows) out.set(row[0] as string, JSON.parse(row[1] as string) as number[]);
    }
    return out;
  }

  // ---- writes ----

  createNode(node: GraphNode): GraphNode {
    const clean = this.assertNode(node);
    if (this.uniques.size > 0) {
      // A taken id is `exists`, even when the node also repeats a unique value.
      if (this.conn.row(SELECT_RID, [clean.id]) !== undefined) throw exists(clean.id);
      this.checkUnique(clean, null);
    }
    try {
      this.insert(clean);
    } catch (error) {
      // The id's UNIQUE index answers "exists" without a lookup first; the failed statement wrote nothing.
      if (isIdConflict(error)) throw exists(clean.id);
      throw error;
    }
    return bare(clean);
  }

  /**
   * Creates every node or none. The nodes go in with multi-row INSERTs under a savepoint, so
   * a taken id (the id index refuses the statement) or any other failure undoes the batch
   * while a surrounding transaction goes on.
   */
  createNodes(nodes: GraphNode[]): GraphNode[] {
    if (!Array.isArray(nodes)) throw new EngineError('invalid_argument', 'nodes must be a list');
    const clean = nodes.map((node) => this.assertNode(node));
    const ids = new Set<string>();
    for (const node of clean) {
      if (ids.has(node.id)) throw exists(node.id);
      ids.add(node.id);
    }
    if (clean.length === 0) return clean;
    // The inserts themselves meet a taken id (nodes.id) or a held unique value (the primary key
    // of unique_values) and are rolled back, so the batch is checked only when that happens,
    // naming the node as createNode would: a taken id is `exists`, even when the node also
    // repeats a unique value; then the first node whose value is held, or repeated in the batch.
    try {
      this.atomically(() => this.insertMany(clean));
    } catch (error) {
      this.explainConflict(error, clean);
    }
    return clean.map(bare);
  }

  /**
   * createNodes of a run of nodes given as columns (see NodeRun): the same rows, rids, index
   * entries and errors, with the multi-row parameters taken from the columns directly.
   */
  createNodeRun(run: NodeRun): number {
    const count = assertNodeRun(run);
    if (count === 0) return 0;
    try {
      this.atomically(() => {
        let rid = Number(this.conn.row('SELECT max(rid) FROM nodes')?.[0] ?? 0);
        let at = 0;
        for (const size of ROW_CHUNKS) {
          while (count - at >= size) {
            this.insertColumns(run, at, size, rid + 1);
            at += size;
            rid += size;
          }
        }
      });
    } catch (error) {
      this.explainConflict(
        error,
        run.ids.map((id, k) => ({
          id,
          labels: run.labels,
          props: JSON.parse(run.propsJson[k] as string) as Props,
          searchText: run.searchText[k] as string,
        })),
      );
    }
    return count;
  }

  putNode(node: GraphNode): GraphNode {
    const clean = this.assertNode(node);
    const existing = this.conn.row(SELECT_RID, [clean.id]);
    if (existing === undefined) {
      this.checkUnique(clean, null);
      this.insert(clean);
    } else {
      this.checkUnique(clean, existing[0] as number);
      this.replace(existing[0] as number, clean, true);
    }
    return bare(clean);
  }

  updateNode(id: string, update: NodeUpdate): GraphNode {
    assertNodeId(id);
    const existing = this.conn.row(SELECT_RID, [id]);
    if (existing === undefined) {
      throw new EngineError('not_found', `No node with id ${JSON.stringify(id)}`, { id });
    }
    const labels = update?.labels ?? (JSON.parse(existing[1] as string) as string[]);
    const clean = this.assertNode({ id, labels, props: update?.props, searchText: update?.searchText });
    this.checkUnique(clean, existing[0] as number);
    // A node given its search text keeps it through an update that gives none.
    const keepsText = clean.searchText === undefined && existing[2] === 1;
    this.replace(existing[0] as number, clean, !keepsText);
    return bare(clean);
  }

  deleteNode(id: string): boolean {
    if (typeof id !== 'string') return false;
    const existing = this.conn.row(SELECT_RID, [id]);
    if (existing === undefined) return false;
    const rid = existing[0] as number;
    this.flush();
    this.conn.run('DELETE FROM edges WHERE from_rid = ?', [rid]);
    this.conn.run('DELETE FROM edges WHERE to_rid = ?', [rid]);
    // The delete trigger removes the labels, full-text entry, embedding and unique values.
    this.conn.run('DELETE FROM nodes WHERE rid = ?', [rid]);
    return true;
  }

  mergeEdge(edge: GraphEdge): MergeEdgeResult {
    assertNodeId(edge?.from, 'edge start');
    assertNodeId(edge.to, 'edge end');
    assertIdentifier(edge.type, 'edge type');
    const props = edge.props ?? {};
    assertProps(props, 'edge props');
    const json = canonicalJson(props);
    const ends = this.conn.row(`SELECT ${RID_OF}, ${RID_OF}`, [edge.from, edge.to]);
    const from = ends?.[0];
    const to = ends?.[1];
    if (typeof from !== 'number' || typeof to !== 'number') return 'missing_endpoint';
    const tid = this.typeIds([edge.type]).get(edge.type)!;
    const existing = this.conn.row('SELECT props FROM edges WHERE from_rid = ? AND tid = ? AND to_rid = ?', [
      from,
      tid,
      to,
    ]);
    if (existing === undefined) {
      this.conn.run('INSERT INTO edges (from_rid, tid, to_rid, props) VALUES (?, ?, ?, ?)', [
        from,
        tid,
        to,
        json,
      ]);
      return 'created';
    }
    if (existing[0] === json) return 'unchanged';
    this.conn.run('UPDATE edges SET props = ? WHERE from_rid = ? AND tid = ? AND to_rid = ?', [
      json,
      from,
      tid,
      to,
    ]);
    return 'updated';
  }

  /**
   * Merges the edges in order; an edge repeated in the batch sees the earlier one. Invalid
   * input rejects the batch before anything is written. Guessing that every end exists and
   * none of the edges does yet (an import of new edges), one `INSERT OR IGNORE … SELECT` per
   * row chunk writes the rows whose ends exist, under a savepoint: when every row was inserted
   * the guess held and the batch is done with no other statement (the ends are looked up
   * inside the insert; the type's tid once per call). Otherwise (also when an edge is repeated
   * in the batch) that insert is rolled back; one statement reads the ends
   * that do not exist (usually none: a row handed back costs more than its lookup), one the
   * current edges, and the rest is written with multi-row upserts.
   */
  mergeEdges(edges: GraphEdge[]): MergeEdgeResult[] {
    if (!Array.isArray(edges)) throw new EngineError('invalid_argument', 'edges must be a list');
    if (edges.length === 0) return [];
    // Checked, and each edge's props as JSON; `shared` when all have the first one's type and props.
    const jsons: string[] = new Array(edges.length);
    let shared = true;
    for (let at = 0; at < edges.length; at += 1) {
      const edge = edges[at]!;
      assertNodeId(edge?.from, 'edge start');
      assertNodeId(edge.to, 'edge end');
      assertIdentifier(edge.type, 'edge type');
      const props = edge.props ?? {};
      assertProps(props, 'edge props');
      const json = propsCanonicalJson(props);
      jsons[at] = json;
      if (shared && at > 0 && (edge.type !== edges[0]!.type || json !== jsons[0])) shared = false;
    }
    const type = edges[0]!.type;
    const json = jsons[0]!;
    // The guess: every row is inserted as given. A row not inserted (an end missing, the edge
    // stored already, or a repeat of an earlier row of the batch: its key is taken by then)
    // makes the count fall short, and the batch takes the exact path below.
    const allNew = this.atomically(() => {
      const tids = this.typeIds(shared ? [type] : edges.map((edge) => edge.type));
      let inserted: number;
      if (shared) {
        inserted = insertSharedEdges(this.conn, edges, tids.get(type)!, json);
      } else {
        const params: SqlValue[] = [];
        for (let at = 0; at < edges.length; at += 1) {
          const edge = edges[at]!;
          params.push(edge.from, edge.type, edge.to, jsons[at]!);
        }
        inserted = insertRows(this.conn, EDGES_INSERT_NEW, params, 4, EDGES_INSERT_NEW_TAIL);
      }
      if (inserted === edges.length) return true;
      this.conn.exec('ROLLBACK TO batch');
      return false;
    });
    if (allNew) return edges.map((): MergeEdgeResult => 'created');
    const clean = edges.map((edge, at) => ({
      from: edge.from,
      type: edge.type,
      to: edge.to,
      json: jsons[at]!,
    }));
    // The results, and per edge written the index of the edge whose row is written (a repeat in
    // the batch replaces the earlier one's props in its place), given the edges that exist
    // (`current`: key → props) and the ends that do not.
    const merge = (current: Map<string, string>, missing: Set<string>) => {
      const writes = new Map<string, number>();
      const results = new Array<MergeEdgeResult>(clean.length);
      for (let at = 0; at < clean.length; at += 1) {
        const edge = clean[at]!;
        if (missing.has(edge.from) || missing.has(edge.to)) {
          results[at] = 'missing_endpoint';
          continue;
        }
        const k = edgeKey(edge);
        const before = current.get(k);
        if (before === edge.json) {
          results[at] = 'unchanged';
          continue;
        }
        current.set(k, edge.json);
        writes.set(k, at);
        results[at] = before === undefined ? 'created' : 'updated';
      }
      return { results, writes };
    };
    const endpoints = new Set<string>();
    for (const edge of clean) endpoints.add(edge.from).add(edge.to);
    const missing = new Set(
      this.conn
        .rows('SELECT value FROM json_each(?) WHERE NOT EXISTS (SELECT 1 FROM nodes WHERE id = value)', [
          JSON.stringify([...endpoints]),
        ])
        .map((row) => row[0] as string),
    );
    const present = merge(new Map(), missing).writes;
    const current = new Map<string, string>();
    if (present.size > 0) {
      const triples = [...present.values()].map((at) => [clean[at]!.from, clean[at]!.type, clean[at]!.to]);
      for (const row of this.conn.rows(
        `SELECT f.id, y.name, t.id, e.props FROM json_each(?) j
         CROSS JOIN nodes f ON f.id = j.value ->> 0 CROSS JOIN nodes t ON t.id = j.value ->> 2
         CROSS JOIN edge_types y ON y.name = j.value ->> 1
         CROSS JOIN edges e ON e.from_rid = f.rid AND e.tid = y.tid AND e.to_rid = t.rid`,
        [JSON.stringify(triples)],
      )) {
        current.set(
          edgeKey({ from: row[0] as string, type: row[1] as string, to: row[2] as string }),
          row[3] as string,
        );
      }
    }
    const { results, writes } = merge(current, missing);
    if (writes.size > 0) {
      const upserts: SqlValue[] = [];
      for (const at of writes.values()) {
        const edge = clean[at]!;
        upserts.push(edge.from, edge.type, edge.to, edge.json);
      }
      this.atomically(() => {
        this.typeIds([...writes.values()].map((at) => clean[at]!.type));
        insertRows(this.conn, EDGES_UPSERT_HEAD, upserts, 4, EDGES_UPSERT_TAIL);
      });
    }
    return results;
  }

  /**
   * The tid of each edge type named (schema.ts `EDGE_TYPES`), entering the names not entered
   * yet. Looked up on every call rather than kept: a tid entered in a transaction that is then
   * rolled back may be given to another name afterwards.
   */
  private typeIds(names: string[]): Map<string, number> {
    const tids = new Map<string, number>();
    for (const name of names) {
      if (tids.has(name)) continue;
      const row = this.conn.row('SELECT tid FROM edge_types WHERE name = ?', [name]);
      tids.set(
        name,
        row === undefined
          ? Number(this.conn.run('INSERT INTO edge_types (name) VALUES (?)', [name]).lastInsertRowid)
          : (row[0] as number),
      );
    }
    return tids;
  }

  deleteEdge(edge: { from: string; type: string; to: string }): boolean {
    return (
      this.conn.run(
        `DELETE FROM edges WHERE from_rid = ${RID_OF} AND tid = ${TID_OF} AND to_rid = ${RID_OF}`,
        [String(edge?.from), String(edge?.type), String(edge?.to)],
      ).changes > 0
    );
  }

  setEmbedding(id: string, vector: number[]): void {
    assertNodeId(id);
    const clean = this.assertVector(vector);
    const existing = this.conn.row(SELECT_RID, [id]);
    if (existing === undefined) {
      throw new EngineError('not_found', `No node with id ${JSON.stringify(id)}`, { id });
    }
    const dimension = this.dimension();
    if (dimension === null) {
      this.conn.run(`INSERT INTO meta (key, value) VALUES ('vector_dimension', ?)`, [String(clean.length)]);
    } else if (dimension !== clean.length) {
      throw new EngineError(
        'invalid_argument',
        `The vector has ${clean.length} dimensions; this graph's embeddings have ${dimension}`,
      );
    }
    this.conn.run('INSERT OR REPLACE INTO embeddings (rid, vec) VALUES (?, vector32(?))', [
      existing[0] as number,
      JSON.stringify(clean),
    ]);
  }

  deleteEmbedding(id: string): boolean {
    assertNodeId(id);
    const existing = this.conn.row(SELECT_RID, [id]);
    if (existing === undefined) return false;
    return this.conn.run('DELETE FROM embeddings WHERE rid = ?', [existing[0] as number]).changes > 0;
  }

  appendAudit(entry: AuditEntryInput): AuditRecord {
    const { record, params } = auditRow(this.auditKey, this.conn.row(AUDIT_LAST), entry);
    this.conn.run(AUDIT_INSERT, params);
    return record;
  }

  auditRecords(options: { afterSeq?: number; limit?: number } = {}): AuditRecord[] {
    assertCount(options.afterSeq, 'afterSeq');
    assertCount(options.limit, 'limit');
    return this.conn
      .rows(
        'SELECT seq, ts, actor, action, target, data, prev_hash, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?',
        [options.afterSeq ?? 0, options.limit ?? -1],
      )
      .map(toAuditRecord);
  }

  /** The audit records matching `filter`, with their total (see Graph.findAudit). */
  findAudit(filter: AuditFilter): AuditPage {
    assertAuditFilter(filter);
    const { page, count } = compileAuditQuery(filter);
    const records = this.conn.rows(page.sql, page.params).map(toAuditRecord);
    const total = filter.total === false ? -1 : Number(this.conn.row(count.sql, count.params)?.[0] ?? 0);
    return { records, total };
  }

  /** Every audit record in sequence order, read page by page. */
  *allAuditRecords(pageSize = 1000): Generator<AuditRecord> {
    let afterSeq = 0;
    for (;;) {
      const page = this.auditRecords({ afterSeq, limit: pageSize });
      yield* page;
      if (page.length < pageSize) return;
      afterSeq = (page[page.length - 1] as AuditRecord).seq;
    }
  }

  /**
   * Declares a unique constraint; EngineError `unique_violation` when existing nodes already
   * share a value. Returns whether the constraint is new.
   */
  ensureUnique(label: string, prop: string): boolean {
    assertIdentifier(label, 'label');
    assertIdentifier(prop, 'property');
    if (this.uniques.get(label)?.includes(prop)) return false;
    const rows = this.conn.rows(`SELECT n.rid, n.id, n.props FROM nodes n WHERE n.rid IN ${LABELLED}`, [
      label,
      label,
    ]);
    const seen = new Map<string, string>();
    for (const row of rows) {
      const key = uniqueKey((JSON.parse(row[2] as string) as Props)[prop]);
      if (key === null) continue;
      const other = seen.get(key);
      if (other !== undefined) {
        throw new EngineError('unique_violation', `Nodes ${other} and ${row[1]} share ${label}.${prop}`, {
          label,
          prop,
        });
      }
      seen.set(key, row[1] as string);
      this.conn.run('INSERT INTO unique_values (label, prop, value, rid) VALUES (?, ?, ?, ?)', [
        label,
        prop,
        key,
        row[0] as number,
      ]);
    }
    this.conn.run('INSERT OR IGNORE INTO unique_constraints (label, prop) VALUES (?, ?)', [label, prop]);
    // The graph's connections share this map; the caller commits right after.
    this.uniques.set(label, [...(this.uniques.get(label) ?? []), prop]);
    return true;
  }

  /** Reloads the shared map of unique constraints from the graph (in place). */
  loadUniqueConstraints(): void {
    readUniqueConstraints(this.conn, this.uniques);
  }

  /**
   * Reloads what other connections may have changed since this one last looked: SQLite's
   * `data_version` moves when another connection (another engine or process on the same
   * file) commits. Called at the start of each write transaction.
   */
  syncWithOtherWriters(): void {
    const version = this.conn.row('PRAGMA data_version')?.[0];
    if (version !== this.dataVersion) {
      if (this.dataVersion !== undefined) this.loadUniqueConstraints();
      this.dataVersion = version;
    }
  }

  private dataVersion: unknown;

  // ---- helpers ----

  /**
   * Runs `op` under a savepoint inside the open transaction: when it throws, what it wrote is
   * undone while the surrounding transaction goes on. Pending full-text entries are written
   * first, so rolling back to the savepoint cannot drop earlier nodes' entries.
   */
  private atomically<T>(op: () => T): T {
    this.flush();
    this.conn.exec('SAVEPOINT batch');
    try {
      const result = op();
      this.conn.exec('RELEASE batch');
      return result;
    } catch (error) {
      this.pendingText = [];
      this.conn.exec('ROLLBACK TO batch; RELEASE batch');
      throw error;
    }
  }

  private dimension(): number | null {
    const row = this.conn.row(`SELECT value FROM meta WHERE key = 'vector_dimension'`);
    return row === undefined ? null : Number(row[0]);
  }

  private assertVector(vector: unknown): number[] {
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      vector.length > MAX_DIMENSION ||
      !vector.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw new EngineError('invalid_argument', 'A vector is a non-empty array of finite numbers');
    }
    // A zero vector has no direction: cosine is undefined (libSQL answers NULL).
    if (vector.every((x) => x === 0)) {
      throw new EngineError('invalid_argument', 'A zero vector has no direction to compare by cosine');
    }
    return vector as number[];
  }

  private assertNode(node: GraphNode): GraphNode {
    assertNodeId(node?.id);
    assertLabels(node.labels);
    assertProps(node.props);
    assertSearchText(node.searchText);
    const clean: GraphNode = { id: node.id, labels: [...node.labels], props: node.props };
    if (node.searchText !== undefined) clean.searchText = node.searchText;
    if (node.propsJson !== undefined) {
      if (typeof node.propsJson !== 'string')
        throw new EngineError('invalid_argument', 'propsJson must be the JSON text of props');
      clean.propsJson = node.propsJson;
    }
    return clean;
  }

  /** Throws `unique_violation` when another node holds a value a constraint reserves. */
  private checkUnique(node: GraphNode, ownRid: number | null): void {
    for (const label of node.labels) {
      for (const prop of this.uniques.get(label) ?? []) {
        const key = uniqueKey(node.props[prop]);
        if (key === null) continue;
        const holder = this.conn.row(
          'SELECT rid FROM unique_values WHERE label = ? AND prop = ? AND value = ?',
          [label, prop, key],
        );
        if (holder !== undefined && holder[0] !== ownRid) {
          throw new EngineError('unique_violation', `Another ${label} node already has ${prop} = ${key}`, {
            label,
            prop,
            value: node.props[prop],
          });
        }
      }
    }
  }

  private insert(node: GraphNode): void {
    const { lastInsertRowid } = this.conn.run(
      'INSERT INTO nodes (id, label, labels, props, text_given) VALUES (?, ?, ?, ?, ?)',
      [
        node.id,
        node.labels[0] as string,
        labelsJson(node.labels),
        propsText(node),
        node.searchText === undefined ? 0 : 1,
      ],
    );
    const rid = Number(lastInsertRowid);
    if (node.labels.length > 1) this.recordCarriers(node.labels);
    this.indexText(rid, node);
    this.indexUnique(rid, node);
  }

  /**
   * Inserts validated new nodes with multi-row statements (runs of ROW_CHUNKS sizes), and
   * their full-text entries likewise. Rids are assigned here, after the largest in use (what
   * SQLite itself would choose), so the full-text rows and unique values need no read-back.
   */
  private insertMany(nodes: GraphNode[]): void {
    let rid = Number(this.conn.row('SELECT max(rid) FROM nodes')?.[0] ?? 0);
    let at = 0;
    for (const size of ROW_CHUNKS) {
      while (nodes.length - at >= size) {
        this.insertRun(nodes, at, size, rid + 1);
        at += size;
        rid += size;
      }
    }
  }

  /** Inserts nodes[at, at + size) with rids from `base` on: one statement for the rows, one for their text. */
  private insertRun(nodes: GraphNode[], at: number, size: number, base: number): void {
    const labels = labelsJson((nodes[at] as GraphNode).labels);
    let shared = true;
    const labelJson: string[] = new Array(size);
    for (let k = 0; k < size; k++) {
      labelJson[k] = labelsJson((nodes[at + k] as GraphNode).labels);
      if (labelJson[k] !== labels) shared = false;
    }
    const params: SqlValue[] = [base];
    if (shared) params.push((nodes[at] as GraphNode).labels[0] as string, labels);
    const texts: SqlValue[] = [base];
    const uniqueRows: SqlValue[] = [];
    let carriers: Set<string> | null = null;
    let allText = true;
    const given = (nodes[at] as GraphNode).searchText !== undefined;
    let sameGiven = true;
    for (let k = 0; k < size; k++) {
      const node = nodes[at + k] as GraphNode;
      if (shared) params.push(node.id, propsText(node));
      else params.push(node.id, node.labels[0] as string, labelJson[k] as string, propsText(node));
      const text = textOf(node);
      if (text.length === 0) allText = false;
      if ((node.searchText !== undefined) !== given) sameGiven = false;
      texts.push(text);
      if (node.labels.length > 1 && !(shared && k > 0)) {
        carriers ??= new Set();
        for (let i = 1; i < node.labels.length; i++)
          carriers.add(`${node.labels[i] as string} ${node.labels[0] as string}`);
      }
      if (this.uniques.size > 0) this.uniqueRows(base + k, node, uniqueRows);
    }
    this.conn.run(nodeRunSql(shared ? 'shared' : 'mixed', size, given && sameGiven), params);
    if (!sameGiven) {
      const rids = nodes
        .slice(at, at + size)
        .flatMap((node, k) => (node.searchText === undefined ? [] : [base + k]));
      this.conn.run('UPDATE nodes SET text_given = 1 WHERE rid IN (SELECT value FROM json_each(?))', [
        JSON.stringify(rids),
      ]);
    }
    // The carriers of the run's further labels: one row per (label, primary label), not per node.
    if (carriers !== null) {
      insertRows(
        this.conn,
        CARRIERS_INSERT,
        [...carriers].flatMap((pair) => pair.split(' ')),
        2,
      );
    }
    if (uniqueRows.length > 0) insertRows(this.conn, UNIQUE_INSERT, uniqueRows, 4);
    this.insertRunTexts(base, size, texts, allText);
  }

  /** The full-text entries of a run of new nodes: {@link runTextStatements}, run. */
  private insertRunTexts(base: number, size: number, texts: SqlValue[], allText: boolean): void {
    const statements: SqlStatement[] = [];
    runTextStatements(base, size, texts, allText, statements);
    for (const [sql, params] of statements) this.conn.run(sql, params);
  }

  /**
   * Rethrows a failed batch insert of `nodes` naming the node as createNode would: a taken id
   * is `exists` (even when the node also repeats a unique value), then the first node whose
   * unique value is held or repeated in the batch.
   */
  private explainConflict(error: unknown, nodes: GraphNode[]): never {
    if (!isConstraintConflict(error)) throw error;
    const taken = this.firstTakenId(nodes);
    if (taken !== null) throw exists(taken);
    if (this.uniques.size > 0) this.checkUniqueBatch(nodes);
    if (isIdConflict(error)) throw exists(String(nodes[0]?.id));
    throw error;
  }

  /** insertRun for nodes [at, at + size) of a NodeRun: {@link nodeRunStatements}, run. */
  private insertColumns(run: NodeRun, at: number, size: number, base: number): void {
    for (const [sql, params] of nodeRunStatements(run, at, size, base, this.uniques))
      this.conn.run(sql, params);
  }

  /** The first of `nodes` whose id is taken, or null. */
  private firstTakenId(nodes: GraphNode[]): string | null {
    const taken = new Set(
      this.conn
        .rows('SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?))', [
          JSON.stringify(nodes.map((node) => node.id)),
        ])
        .map((row) => row[0] as string),
    );
    return nodes.find((node) => taken.has(node.id))?.id ?? null;
  }

  /** checkUnique for new nodes, also against each other. */
  private checkUniqueBatch(nodes: GraphNode[]): void {
    const claimed = new Set<string>();
    for (const node of nodes) {
      this.checkUnique(node, null);
      for (const label of node.labels) {
        for (const prop of this.uniques.get(label) ?? []) {
          const key = uniqueKey(node.props[prop]);
          if (key === null) continue;
          const claim = JSON.stringify([label, prop, key]);
          if (claimed.has(claim)) {
            throw new EngineError(
              'unique_violation',
              `Two ${label} nodes of the batch have ${prop} = ${key}`,
              {
                label,
                prop,
                value: node.props[prop],
              },
            );
          }
          claimed.add(claim);
        }
      }
    }
  }

  /**
   * Records that nodes of `labels[0]` carry each further label (label_carriers); the node's
   * labels themselves are in its row.
   */
  private recordCarriers(labels: string[]): void {
    const statements: SqlStatement[] = [];
    carrierStatements(labels, statements);
    for (const [sql, params] of statements) this.conn.run(sql, params);
  }

  /**
   * Rewrites node `rid`; with `reindex`, its full-text entry too (to its search text, or the
   * strings of its props), else the entry and `text_given` stay.
   */
  private replace(rid: number, node: GraphNode, reindex: boolean): void {
    if (reindex) {
      // The old full-text entry must be written before it can be deleted.
      this.flush();
      this.conn.run('DELETE FROM nodes_fts WHERE rowid = ?', [rid]);
      this.conn.run('UPDATE nodes SET label = ?, labels = ?, props = ?, text_given = ? WHERE rid = ?', [
        node.labels[0] as string,
        labelsJson(node.labels),
        propsText(node),
        node.searchText === undefined ? 0 : 1,
        rid,
      ]);
    } else {
      this.conn.run('UPDATE nodes SET label = ?, labels = ?, props = ? WHERE rid = ?', [
        node.labels[0] as string,
        labelsJson(node.labels),
        propsText(node),
        rid,
      ]);
    }
    if (this.uniques.size > 0) this.conn.run('DELETE FROM unique_values WHERE rid = ?', [rid]);
    if (reindex) this.indexText(rid, node);
    this.indexUnique(rid, node);
  }

  private indexText(rid: number, node: GraphNode): void {
    const text = textOf(node);
    if (text.length === 0) return;
    this.pendingText.push(rid, text);
    if (this.pendingText.length >= 2000) this.flush();
  }

  /** Appends the node's values under its labels' unique constraints as (label, prop, value, rid) rows. */
  private uniqueRows(rid: number, node: GraphNode, rows: SqlValue[]): void {
    for (const label of node.labels) {
      for (const prop of this.uniques.get(label) ?? []) {
        const key = uniqueKey(node.props[prop]);
        if (key !== null) rows.push(label, prop, key, rid);
      }
    }
  }

  /** Records the node's values under its labels' unique constraints (labels and text: triggers). */
  private indexUnique(rid: number, node: GraphNode): void {
    if (this.uniques.size === 0) return;
    const rows: SqlValue[] = [];
    this.uniqueRows(rid, node, rows);
    insertRows(this.conn, UNIQUE_INSERT, rows, 4);
  }
}
