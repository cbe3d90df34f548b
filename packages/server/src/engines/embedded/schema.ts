/** Bumped when the layout below changes; stored in `meta.schema_version`. */
export const SCHEMA_VERSION = '7';

/**
 * One database file per graph. Node ids are the caller's strings; `rid` is the internal
 * rowid that the full-text index, the embeddings and the label index point at. Labels and
 * props are JSON text. The primary (first) label is a column with its own index, so the usual
 * single-label node is one row in one table. Further labels have no row per node: they are in
 * the node's `labels` JSON, and `label_carriers` records, per further label, the primary
 * labels of nodes that carry it (see {@link LABELLED}): a node of primary label P carrying L is
 * found by the `nodes_label` index on P and a look at its `labels`. A carrier row stays after
 * its last node goes (a superset costs a probe, never a wrong answer). So a content item of
 * labels [Article, Content] is one row, not two (schema 5; version 4 wrote a `node_labels` row
 * per further label). The store records the carriers of new nodes itself; triggers record
 * those of a changed node and remove the full-text entry, embedding and unique values of a
 * deleted node. The store writes
 * full-text entries (the node's `searchText`, else `searchableText` of the props) in batches
 * within the transaction, and replaces the entry of a changed node itself: `text_given` is 1
 * when the node was given a search text, which an update without one keeps.
 */
/**
 * FTS5 merges a level's segments (one per committed transaction) once it holds this many.
 * The default, 4, rewrote each full-text entry about twice as often: merging was a sixth of
 * the CPU time of a bulk insert. 16 (the most before a crisis merge) costs a rare-word lookup
 * about 40 µs more on 100,000 nodes, still well under a millisecond.
 */
const FTS_AUTOMERGE = `INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('automerge', 16);`;

/** Schema version 4's: kept `node_labels` in step when a node changed (migration 3 → 4 writes it). */
const UPDATE_TRIGGER_4 = `CREATE TRIGGER IF NOT EXISTS nodes_after_update AFTER UPDATE ON nodes BEGIN
  DELETE FROM node_labels WHERE label IN (SELECT value FROM json_each(OLD.labels) WHERE key > 0) AND rid = OLD.rid;
  INSERT INTO node_labels (label, rid) SELECT value, NEW.rid FROM json_each(NEW.labels) WHERE key > 0;
END;`;

/**
 * Records the carriers of a node's further labels when its labels change (the store replaces
 * its full-text entry). Runs only when they change, so an update of props parses no labels.
 */
const UPDATE_TRIGGER = `CREATE TRIGGER IF NOT EXISTS nodes_after_update AFTER UPDATE OF label, labels ON nodes
  WHEN NEW.labels IS NOT OLD.labels OR NEW.label IS NOT OLD.label BEGIN
  INSERT OR IGNORE INTO label_carriers (label, primary_label)
    SELECT value, NEW.label FROM json_each(NEW.labels) WHERE key > 0;
END;`;

/** Removes what hangs off a deleted node's rid. */
const DELETE_TRIGGER = `CREATE TRIGGER IF NOT EXISTS nodes_after_delete AFTER DELETE ON nodes BEGIN
  DELETE FROM nodes_fts WHERE rowid = OLD.rid;
  DELETE FROM embeddings WHERE rid = OLD.rid;
  DELETE FROM unique_values WHERE rid = OLD.rid;
END;`;

const LABEL_CARRIERS = `CREATE TABLE IF NOT EXISTS label_carriers (
  label TEXT NOT NULL,
  primary_label TEXT NOT NULL,
  PRIMARY KEY (label, primary_label)
) WITHOUT ROWID;`;

/**
 * The edge types (labels) a graph's edges use, each named once: an edge row holds its type's
 * `tid` (schema 7), a small integer (SQLite stores 1 in no byte at all), instead of the name
 * in both of its B-tree entries. A type's row stays after its last edge goes (a superset costs
 * nothing), so a tid, once committed, always names the same type.
 */
const EDGE_TYPES = `CREATE TABLE IF NOT EXISTS edge_types (
  tid INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);`;

/**
 * An edge between the nodes of rids `from_rid` and `to_rid`, of type `tid` (see EDGE_TYPES).
 * Version 5 and before keyed it by the ends' id strings: the two B-tree entries of an edge then
 * held both ids twice, and an insert compared long strings all the way down both trees. With
 * the rids (schema 6) and the type's integer (schema 7) an edge's key is three small integers;
 * the ends' ids are looked up in `nodes` (the check that both ends exist does that lookup
 * anyway), and reads join `nodes` for the ids and `edge_types` for the type's name. Rows come
 * out in rid and tid order, not id and name order: reads that promise the names' order sort by
 * them.
 */
function edgesTable(name: string): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (
  from_rid INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  to_rid INTEGER NOT NULL,
  props TEXT NOT NULL,
  PRIMARY KEY (from_rid, tid, to_rid)
) WITHOUT ROWID;`;
}
const EDGES_TO = 'CREATE INDEX IF NOT EXISTS edges_to ON edges (to_rid, tid, from_rid);';
/** The edge types, the edges table and its reverse index as the schema makes them (bench/import-sizes.ts's edge floor). */
export const EDGES_SQL = `${EDGE_TYPES}\n${edgesTable('edges')}\n${EDGES_TO}`;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  labels TEXT NOT NULL,
  props TEXT NOT NULL,
  text_given INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS nodes_label ON nodes (label, id);
${LABEL_CARRIERS}
${EDGE_TYPES}
${edgesTable('edges')}
${EDGES_TO}
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5 (
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
${FTS_AUTOMERGE}
CREATE TABLE IF NOT EXISTS embeddings (rid INTEGER PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS unique_constraints (
  label TEXT NOT NULL,
  prop TEXT NOT NULL,
  PRIMARY KEY (label, prop)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unique_values (
  label TEXT NOT NULL,
  prop TEXT NOT NULL,
  value TEXT NOT NULL,
  rid INTEGER NOT NULL,
  PRIMARY KEY (label, prop, value)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unique_values_rid ON unique_values (rid);
${UPDATE_TRIGGER}
${DELETE_TRIGGER}
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  data TEXT,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
`;

/**
 * What brings a file of an older schema version (the key) to the next version, applied in
 * order when a graph is opened, each step in its own transaction.
 * - 2 → 3: the insert trigger that copied extra labels to `node_labels` is gone (it cost a
 *   JSON parse per inserted node); the store writes them (version 3 code would write them twice
 *   if the trigger stayed). The full-text index merges 16 segments at a time (FTS_AUTOMERGE).
 * - 3 → 4: nodes can be given their search text (`text_given`); the update trigger no longer
 *   removes the full-text entry (the store replaces it when the text changes). Existing entries
 *   stay as they are (the strings of the props).
 * - 4 → 5: no `node_labels` row per further label (a content item's `Content` was a second
 *   B-tree insert per item); `label_carriers` is filled from the old rows and the table dropped.
 * - 5 → 6: edges keyed by the ends' rids instead of their ids (see {@link edgesTable}); the
 *   rows are copied with the rids of their ends. An edge whose end is not a node (the store
 *   never leaves one: it checks both ends and deletes a node's edges with it) would be dropped.
 * - 6 → 7: an edge's type as the integer of its name in `edge_types` (see EDGE_TYPES); the
 *   names of the edges' types are entered (in name order) and the rows copied with their tids.
 */
export const MIGRATIONS: Record<string, { to: string; sql: string }> = {
  '2': { to: '3', sql: `DROP TRIGGER IF EXISTS nodes_after_insert; ${FTS_AUTOMERGE}` },
  '3': {
    to: '4',
    sql: `ALTER TABLE nodes ADD COLUMN text_given INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER IF EXISTS nodes_after_update;
${UPDATE_TRIGGER_4}`,
  },
  '4': {
    to: '5',
    sql: `${LABEL_CARRIERS}
INSERT OR IGNORE INTO label_carriers (label, primary_label)
  SELECT DISTINCT x.label, n.label FROM node_labels x JOIN nodes n ON n.rid = x.rid;
DROP TRIGGER IF EXISTS nodes_after_update;
DROP TRIGGER IF EXISTS nodes_after_delete;
DROP TABLE node_labels;
${UPDATE_TRIGGER}
${DELETE_TRIGGER}`,
  },
  '5': {
    to: '6',
    sql: `CREATE TABLE IF NOT EXISTS edges_6 (
  from_rid INTEGER NOT NULL,
  type TEXT NOT NULL,
  to_rid INTEGER NOT NULL,
  props TEXT NOT NULL,
  PRIMARY KEY (from_rid, type, to_rid)
) WITHOUT ROWID;
INSERT INTO edges_6 (from_rid, type, to_rid, props)
  SELECT f.rid, e.type, t.rid, e.props FROM edges e
  CROSS JOIN nodes f ON f.id = e.from_id CROSS JOIN nodes t ON t.id = e.to_id;
DROP TABLE edges;
ALTER TABLE edges_6 RENAME TO edges;
CREATE INDEX IF NOT EXISTS edges_to ON edges (to_rid, type, from_rid);`,
  },
  '6': {
    to: '7',
    sql: `${EDGE_TYPES}
INSERT OR IGNORE INTO edge_types (name) SELECT DISTINCT type FROM edges ORDER BY type;
${edgesTable('edges_7')}
INSERT INTO edges_7 (from_rid, tid, to_rid, props)
  SELECT e.from_rid, y.tid, e.to_rid, e.props FROM edges e CROSS JOIN edge_types y ON y.name = e.type;
DROP TABLE edges;
ALTER TABLE edges_7 RENAME TO edges;
${EDGES_TO}`,
  },
};

/**
 * SQL true when node `n` carries `label` (an SQL expression) as a further label. Labels are
 * identifiers (no quote), so the quoted label occurs in the labels JSON exactly when it is
 * one of them; the caller has already ruled out the primary label.
 */
export function carries(n: string, label: string): string {
  return `instr(${n}.labels, '"' || ${label} || '"') > 0`;
}

/**
 * SQL for "the rids of nodes carrying label ?" (binds the label twice): the primary label
 * index, plus the nodes of the primary labels that carry it as a further label.
 */
export const LABELLED = `(SELECT rid FROM nodes WHERE label = ? UNION ALL
  SELECT n.rid FROM label_carriers c CROSS JOIN nodes n ON n.label = c.primary_label
  WHERE c.label = ? AND ${carries('n', 'c.label')})`;
