import neo4j, { type Session } from 'neo4j-driver';
import { REAL_LABEL_PREFIX } from './stored-node';
import { toEngineError } from './to-engine-error';

/**
 * Labels of the engine's own nodes. Every graph's data carries its graph name in `g`, and
 * every index leads with it, so one database holds many graphs (Community edition).
 */
export const LABELS = {
  /** The registry of graphs, in the home database: `{name, db, createdAt}`. */
  graph: 'TGraph',
  /** One per graph: the write lock of its transactions. */
  head: 'TGraphHead',
  node: 'TNode',
  /** A node's embedding: `{g, id, dim, v<dim>}`. */
  embedding: 'TEmb',
  audit: 'TAudit',
  /** A declared unique (label, prop): `{g, label, prop}`. */
  uniqueRule: 'TUniqueRule',
  /** A claimed unique value: `{g, k, owner}`; `k` hashes (label, prop, value). */
  unique: 'TUnique',
  /** One per database: the data layout its nodes have been migrated to, `{key, version}`. */
  layout: 'TLayout',
} as const;

/**
 * The data layout this version writes. 1: every `TNode` also carries a real label per entry of
 * its `labels` list (REAL_LABEL_PREFIX), which findNodes matches on. 2: a node's first unique
 * claim is its own property `uk` (indexed by `trellis_node_claim`) instead of a `TUnique` node;
 * only its further claims are `TUnique` nodes.
 */
export const LAYOUT_VERSION = 2;

/** Nodes labelled per transaction by the layout migration. */
const MIGRATION_BATCH = 10_000;

/**
 * Brings the nodes of a database written by an earlier version to LAYOUT_VERSION, once: gives
 * every `TNode` the real labels of its `labels` list (version 1) and moves one `TUnique` claim
 * of each node onto the node as `uk` (version 2), in transactions of MIGRATION_BATCH rows
 * (idempotent, so an interrupted run is simply run again), then records the version in the
 * database's `TLayout` node, which later inits read and skip. Nodes written meanwhile by this
 * version are in the new layout already.
 */
export async function migrateLayout({ openSession }: { openSession: () => Session }): Promise<void> {
  const session = openSession();
  try {
    const marker = await session.run("MATCH (m:TLayout {key: 'data'}) RETURN m.version AS version");
    const version = Number(marker.records[0]?.get('version') ?? 0);
    if (version >= LAYOUT_VERSION) return;
    // CALL … IN TRANSACTIONS needs an auto-commit transaction (session.run).
    if (version < 1) {
      await session.run(
        `MATCH (n:TNode)
         CALL (n) {
           SET n:$([l IN coalesce(n.labels, []) | '${REAL_LABEL_PREFIX}' + l])
         } IN TRANSACTIONS OF ${MIGRATION_BATCH} ROWS`,
      );
    }
    if (version < 2) {
      // Each node without a `uk` takes one of its TUnique claims (the smallest key) onto itself;
      // the claim node goes in the same inner transaction, so a run cut short is run again.
      await session.run(
        `MATCH (u:TUnique) WITH u.g AS g, u.owner AS owner, min(u.k) AS k
         CALL (g, owner, k) {
           MATCH (n:TNode {g: g, id: owner}) USING INDEX n:TNode(g, id) WHERE n.uk IS NULL
           SET n.uk = k
           WITH n
           MATCH (u:TUnique {g: g, k: k}) USING INDEX u:TUnique(g, k)
           DELETE u
         } IN TRANSACTIONS OF ${MIGRATION_BATCH} ROWS`,
      );
    }
    await session.run("MERGE (m:TLayout {key: 'data'}) SET m.version = $version, m.migratedAt = $now", {
      version: neo4j.int(LAYOUT_VERSION),
      now: new Date().toISOString(),
    });
  } catch (error) {
    throw toEngineError(error);
  } finally {
    await session.close();
  }
}

/** The full-text index over `TNode.ft` (the words) and `TNode.ftg` (the graph name). */
export const TEXT_INDEX = 'trellis_node_text';

/** Statements that create the constraints and indexes of the graph data (idempotent). */
export const DATA_SCHEMA = [
  'CREATE CONSTRAINT trellis_head_g IF NOT EXISTS FOR (h:TGraphHead) REQUIRE h.g IS UNIQUE',
  'CREATE CONSTRAINT trellis_node_key IF NOT EXISTS FOR (n:TNode) REQUIRE (n.g, n.id) IS UNIQUE',
  'CREATE INDEX trellis_node_g IF NOT EXISTS FOR (n:TNode) ON (n.g)',
  'CREATE CONSTRAINT trellis_emb_key IF NOT EXISTS FOR (e:TEmb) REQUIRE (e.g, e.id) IS UNIQUE',
  'CREATE INDEX trellis_emb_g IF NOT EXISTS FOR (e:TEmb) ON (e.g)',
  'CREATE CONSTRAINT trellis_audit_seq IF NOT EXISTS FOR (a:TAudit) REQUIRE (a.g, a.seq) IS UNIQUE',
  'CREATE INDEX trellis_audit_g IF NOT EXISTS FOR (a:TAudit) ON (a.g)',
  'CREATE INDEX trellis_audit_op IF NOT EXISTS FOR (a:TAudit) ON (a.g, a.op)',
  'CREATE CONSTRAINT trellis_node_claim IF NOT EXISTS FOR (n:TNode) REQUIRE (n.g, n.uk) IS UNIQUE',
  'CREATE CONSTRAINT trellis_unique_key IF NOT EXISTS FOR (u:TUnique) REQUIRE (u.g, u.k) IS UNIQUE',
  'CREATE INDEX trellis_unique_owner IF NOT EXISTS FOR (u:TUnique) ON (u.g, u.owner)',
  'CREATE INDEX trellis_unique_g IF NOT EXISTS FOR (u:TUnique) ON (u.g)',
  'CREATE CONSTRAINT trellis_unique_rule IF NOT EXISTS FOR (r:TUniqueRule) REQUIRE (r.g, r.label, r.prop) IS UNIQUE',
  'CREATE INDEX trellis_unique_rule_g IF NOT EXISTS FOR (r:TUniqueRule) ON (r.g)',
  'CREATE CONSTRAINT trellis_layout_key IF NOT EXISTS FOR (m:TLayout) REQUIRE m.key IS UNIQUE',
  `CREATE FULLTEXT INDEX ${TEXT_INDEX} IF NOT EXISTS FOR (n:TNode) ON EACH [n.ft, n.ftg]
   OPTIONS {indexConfig: {\`fulltext.analyzer\`: 'whitespace'}}`,
];

/** Statements that create the graph registry's constraint (home database). */
export const REGISTRY_SCHEMA = [
  'CREATE CONSTRAINT trellis_graph_name IF NOT EXISTS FOR (r:TGraph) REQUIRE r.name IS UNIQUE',
];

/** The labels a graph's data lives under, in the order dropGraph deletes them. */
export const DATA_LABELS = [
  LABELS.embedding,
  LABELS.unique,
  LABELS.uniqueRule,
  LABELS.audit,
  LABELS.node,
  LABELS.head,
] as const;

/** Runs schema statements one by one (schema and data cannot share a transaction), then waits for the indexes. */
export async function applySchema({
  openSession,
  statements,
}: {
  /** Opens a write session on the database to set up. */
  openSession: () => Session;
  statements: readonly string[];
}): Promise<void> {
  const session = openSession();
  try {
    for (const statement of statements) {
      await session.executeWrite((tx) => tx.run(statement));
    }
    await session.run('CALL db.awaitIndexes(300)');
  } catch (error) {
    throw toEngineError(error);
  } finally {
    await session.close();
  }
}

/** Largest vector the Neo4j 5 vector index accepts. */
export const MAX_INDEXED_DIMENSION = 4096;

/** The vector index and the property of `TEmb` that hold the embeddings of one dimension. */
export function vectorIndex(dimension: number): { name: string; property: string } {
  if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`Bad dimension ${dimension}`);
  return { name: `trellis_vec_${dimension}`, property: `v${dimension}` };
}

/**
 * Creates the cosine vector index for one dimension (idempotent; populated in the
 * background). Only a validated integer reaches the statement text.
 */
export async function createVectorIndex({
  openSession,
  dimension,
}: {
  /** Opens a write session on the graph's database. */
  openSession: () => Session;
  dimension: number;
}): Promise<void> {
  const { name, property } = vectorIndex(dimension);
  const session = openSession();
  try {
    await session.executeWrite((tx) =>
      tx.run(
        `CREATE VECTOR INDEX ${name} IF NOT EXISTS FOR (e:TEmb) ON e.${property}
         OPTIONS {indexConfig: {\`vector.dimensions\`: ${dimension}, \`vector.similarity_function\`: 'cosine'}}`,
      ),
    );
  } finally {
    await session.close();
  }
}
