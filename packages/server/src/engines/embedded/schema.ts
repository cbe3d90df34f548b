/** Bumped when the layout below changes; stored in `meta.schema_version`. */
export const SCHEMA_VERSION = '1';

/**
 * One database file per graph. Node ids are the caller's strings; `rid` is the internal
 * rowid that the label index, the full-text index and the embeddings point at.
 * Labels are stored space-separated (they are identifiers), props as JSON text.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  labels TEXT NOT NULL,
  props TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS node_labels (
  label TEXT NOT NULL,
  rid INTEGER NOT NULL,
  PRIMARY KEY (label, rid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS node_labels_rid ON node_labels (rid);
CREATE TABLE IF NOT EXISTS edges (
  from_id TEXT NOT NULL,
  type TEXT NOT NULL,
  to_id TEXT NOT NULL,
  props TEXT NOT NULL,
  PRIMARY KEY (from_id, type, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_to ON edges (to_id, type, from_id);
CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5 (
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
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
