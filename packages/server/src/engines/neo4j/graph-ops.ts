import { canonicalJson } from '@trelliscms/core';
import { int, type QueryResult } from 'neo4j-driver';
import {
  type AuditEntryInput,
  type AuditRecord,
  type EdgeQuery,
  EngineError,
  type GraphEdge,
  type GraphNode,
  type GraphWriter,
  type MergeEdgeResult,
  type NodeJsonWithEdges,
  type NodePage,
  type NodeQuery,
  type NodeUpdate,
  type NodeWithEdges,
  type Props,
  type SimilarHit,
  type SimilarityQuery,
  type TraversalHit,
  type TraversalQuery,
} from '../port';
import { auditMac, GENESIS_HASH } from '../shared/audit-chain';
import {
  assertCount,
  assertIdentifier,
  assertLabels,
  assertNodeId,
  assertProps,
  assertSearchText,
} from '../shared/identifiers';
import { findNodesQuery } from './find-nodes-query';
import { MAX_INDEXED_DIMENSION, vectorIndex } from './schema';
import {
  decodeNode,
  NODE_PROJECTION,
  nodeJsonOf,
  realLabelsOf,
  realLabelsOn,
  storedNode,
  storedNodeOwn,
} from './stored-node';
import { type UniqueClaim, type UniqueRule, uniqueClaims } from './unique-claims';

/**
 * The state of one attempt of a write transaction. The driver runs the transaction function
 * again after a transient failure, so each attempt starts from a fresh WriteAttempt while
 * `token` stays the same for the whole logical write. Nodes and audit records carry the token:
 * when a commit succeeded but its acknowledgement was lost, the retry recognises its own
 * earlier work instead of failing with `exists` or appending the audit entry twice.
 */
export interface WriteAttempt {
  token: string;
  /** Ids created by this attempt (a second createNode of one id in one transaction is `exists`). */
  created: Set<string>;
  /** Counts appendAudit calls, so the n-th append of a retry finds the n-th of the first try. */
  auditCalls: number;
  /** Embedding dimensions written, whose vector index is created after the commit. */
  dimensions: Set<number>;
  rules?: UniqueRule[];
  /**
   * Whether an earlier attempt of this write ran (the driver retried it): only then can the
   * graph hold work carrying this write's token, so only then does appendAudit look for it.
   */
  retry: boolean;
  /**
   * The graph's last audit record (`null`: none yet), read with the write lock and kept up to
   * date by appendAudit, so an append is one statement. Undefined: not read yet.
   */
  lastAudit?: { seq: number; hash: string } | null;
  /**
   * Settles once the graph's write lock is held and `rules` and `lastAudit` are filled in (see
   * Neo4jGraph.write: the lock statement is sent without waiting for its answer). Undefined:
   * nothing to wait for.
   */
  locked?: Promise<void>;
}

export function newWriteAttempt(token: string, retry = true): WriteAttempt {
  return { token, created: new Set(), auditCalls: 0, dimensions: new Set(), retry };
}

/** Which vector indexes are ready to answer queries. */
export interface VectorIndexState {
  isOnline(dimension: number): Promise<boolean>;
}

type Row = Record<string, unknown>;

/**
 * What GraphOps runs its statements on: a managed transaction, or (for a read of one
 * statement) a session whose `run` is an auto-commit transaction: one Bolt round trip.
 */
export interface QueryRunner {
  run(query: string, parameters?: Record<string, unknown>): PromiseLike<QueryResult>;
}

const TRAVERSAL_STEP = {
  out: 'MATCH (a:TNode {g: $g, id: fid})-[r]->(b:TNode) USING INDEX a:TNode(g, id)',
  in: 'MATCH (a:TNode {g: $g, id: fid})<-[r]-(b:TNode) USING INDEX a:TNode(g, id)',
  both: 'MATCH (a:TNode {g: $g, id: fid})-[r]-(b:TNode) USING INDEX a:TNode(g, id)',
} as const;

/** The graph's last audit record; ordering by the whole (g, seq) index key reads it straight from the index. */
export const LAST_AUDIT = `MATCH (a:TAudit {g: $g}) WHERE a.seq IS NOT NULL
  RETURN a {.seq, .hash} AS last ORDER BY a.g DESC, a.seq DESC LIMIT 1`;

/**
 * The unique values other nodes hold among `$claims` (`{k, owner}` each): a claim lives on its
 * node as `uk` (a node's first claim, see syncClaims) or, for a node's further claims, as a
 * `TUnique` node. Returns `held`: at most one `{k, owner}`.
 */
const HELD_CLAIMS = `CALL {
    UNWIND $claims AS c
    CALL (c) {
      MATCH (x:TNode {g: $g, uk: c.k}) USING INDEX x:TNode(g, uk) WHERE x.id <> c.owner RETURN x.id AS holder
      UNION
      MATCH (u:TUnique {g: $g, k: c.k}) USING INDEX u:TUnique(g, k) WHERE u.owner <> c.owner RETURN u.owner AS holder
    }
    RETURN collect({k: c.k, owner: holder})[0..1] AS held
  }`;

/**
 * createNodes in one statement (`$stored`: each node's own properties, storedNodeOwn, with its
 * first unique claim as `uk`; `g`, `ftg` and `tx` come from one parameter each): the batch's ids
 * already taken (`existing`; `taken` those not created by an earlier attempt of this write, or
 * created by this attempt: `$mine`), a unique value another node holds (`held`), and only when
 * neither refuses the batch, the new nodes and their further claims (`$extra`, as `TUnique`
 * nodes). A refused batch writes nothing.
 */
const CREATE_NODES = `CALL {
    UNWIND $ids AS id MATCH (x:TNode {g: $g, id: id}) USING INDEX x:TNode(g, id)
    RETURN collect(x {.id, .labels, .json, .tx}) AS existing
  }
  ${HELD_CLAIMS}
  WITH existing, held, [x IN existing WHERE coalesce(x.tx, '') <> $token OR x.id IN $mine] AS taken
  CALL {
    WITH existing, held, taken
    WITH existing WHERE size(taken) = 0 AND size(held) = 0
    WITH [x IN existing | x.id] AS done
    UNWIND [s IN $stored WHERE NOT s.id IN done] AS s
    CREATE (n:TNode) SET n = s, n.g = $g, n.ftg = $g, n.tx = $token, n:$(${realLabelsOf('s.labels')})
  }
  CALL {
    WITH held, taken
    WITH held WHERE size(taken) = 0 AND size(held) = 0
    UNWIND $extra AS c
    MERGE (u:TUnique {g: $g, k: c.k}) ON CREATE SET u.owner = c.owner
  }
  RETURN existing, held, taken`;

/** Most candidates asked of the vector index before falling back to an exact scan. */
const MAX_VECTOR_CANDIDATES = 10_000;

/** Largest accepted embedding. */
const MAX_DIMENSION = 65_536;

/**
 * The reads and writes of one graph inside one Neo4j transaction. Every query is a fixed
 * text with parameters; the only values spliced into query text are edge types and labels, after
 * assertIdentifier, inside backticks. Every node also carries a real label per Trellis label
 * (REAL_LABEL_PREFIX), written with dynamic labels (`SET n:$(…)`).
 */
export class GraphOps implements GraphWriter {
  constructor(
    private readonly tx: QueryRunner,
    private readonly graph: string,
    private readonly vectors: VectorIndexState,
    private readonly attempt: WriteAttempt | null,
    /** The key of the audit chain's HMAC (engines/shared/audit-key). */
    private readonly auditKey: Uint8Array,
  ) {}

  private async run(query: string, params: Props = {}): Promise<Row[]> {
    const result = await this.tx.run(query, { g: this.graph, ...params });
    return result.records.map((record) => record.toObject() as Row);
  }

  private writing(): WriteAttempt {
    if (this.attempt === null) throw new Error('A read transaction cannot write');
    return this.attempt;
  }

  async getNode(id: string): Promise<GraphNode | null> {
    assertNodeId(id);
    const rows = await this.run(
      `MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id) RETURN ${NODE_PROJECTION} AS n`,
      { id },
    );
    return rows[0] ? decodeNode(rows[0].n) : null;
  }

  async getNodes(ids: string[]): Promise<GraphNode[]> {
    if (!Array.isArray(ids)) throw new EngineError('invalid_argument', 'ids must be a list');
    for (const id of ids) assertNodeId(id);
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = await this.run(
      `UNWIND $ids AS id MATCH (n:TNode {g: $g, id: id}) USING INDEX n:TNode(g, id) RETURN ${NODE_PROJECTION} AS n`,
      { ids: unique },
    );
    const byId = new Map(rows.map((row) => [(row.n as { id: string }).id, decodeNode(row.n)]));
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  async findNodes(query: NodeQuery): Promise<NodePage> {
    const cypher = findNodesQuery({ graph: this.graph, query });
    const [count] = await this.run(cypher.count, cypher.params);
    const total = Number(count?.total ?? 0);
    if (query.limit === 0 || total === 0) return { nodes: [], total };
    const rows = await this.run(cypher.page, cypher.params);
    return { nodes: rows.map((row) => decodeNode(row.n)), total };
  }

  /** getNodeWithEdges' read, the props given back as their stored text (stored-node.ts nodeJsonOf). */
  async getNodeJsonWithEdges(id: string): Promise<NodeJsonWithEdges | null> {
    return nodeJsonOf(await this.getNodeWithEdges(id));
  }

  /** One statement: the node by the (g, id) index, then its outgoing edges, ordered as getEdges. */
  async getNodeWithEdges(id: string): Promise<NodeWithEdges | null> {
    assertNodeId(id);
    const rows = await this.run(
      `MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id)
       CALL {
         WITH n
         OPTIONAL MATCH (n)-[r]->(b:TNode)
         WITH r, b ORDER BY type(r), b.id
         RETURN collect(CASE WHEN r IS NULL THEN NULL ELSE [type(r), b.id, r.json] END) AS edges
       }
       RETURN ${NODE_PROJECTION} AS n, edges`,
      { id },
    );
    const row = rows[0];
    if (!row) return null;
    return {
      node: decodeNode(row.n),
      edges: (row.edges as Array<[string, string, string | null]>).map(([type, to, json]) => ({
        from: id,
        type,
        to,
        props: JSON.parse(json ?? '{}') as Props,
      })),
    };
  }

  async getEdges(query: EdgeQuery): Promise<GraphEdge[]> {
    const params: Props = { from: query.from ?? null, to: query.to ?? null, type: query.type ?? null };
    if (query.from !== undefined) assertNodeId(query.from, 'from');
    if (query.to !== undefined) assertNodeId(query.to, 'to');
    if (query.type !== undefined) assertIdentifier(query.type, 'edge type');
    // Start from whichever end is known, so the (g, id) index is used.
    const start =
      query.from !== undefined
        ? 'MATCH (a:TNode {g: $g, id: $from})-[r]->(b:TNode) USING INDEX a:TNode(g, id)'
        : query.to !== undefined
          ? 'MATCH (a:TNode)-[r]->(b:TNode {g: $g, id: $to}) USING INDEX b:TNode(g, id)'
          : 'MATCH (a:TNode {g: $g})-[r]->(b:TNode)';
    const rows = await this.run(
      `${start}
       WHERE ($to IS NULL OR b.id = $to) AND ($type IS NULL OR type(r) = $type)
       RETURN a.id AS from, type(r) AS type, b.id AS to, r.json AS json
       ORDER BY from, type, to`,
      params,
    );
    return rows.map((row) => ({
      from: row.from as string,
      type: row.type as string,
      to: row.to as string,
      props: JSON.parse((row.json as string | null) ?? '{}') as Props,
    }));
  }

  async traverse(query: TraversalQuery): Promise<TraversalHit[]> {
    assertNodeId(query.from, 'from');
    if (!Number.isInteger(query.depth) || query.depth < 1 || query.depth > 5) {
      throw new EngineError('invalid_argument', 'depth must be an integer from 1 to 5');
    }
    const step = Object.hasOwn(TRAVERSAL_STEP, query.direction) ? TRAVERSAL_STEP[query.direction] : undefined;
    if (step === undefined) {
      throw new EngineError('invalid_argument', `Unknown direction ${JSON.stringify(query.direction)}`);
    }
    if (query.edgeTypes !== undefined) {
      if (!Array.isArray(query.edgeTypes))
        throw new EngineError('invalid_argument', 'edgeTypes must be a list');
      for (const type of query.edgeTypes) assertIdentifier(type, 'edge type');
    }
    if (query.label !== undefined) assertIdentifier(query.label, 'label');
    assertCount(query.limit, 'limit');

    // Breadth-first, one query per level: each node is reached once, at its shortest
    // distance, without enumerating the (possibly exponential) paths of a *1..n pattern.
    const depthOf = new Map<string, number>([[query.from, 0]]);
    let frontier = [query.from];
    for (let depth = 1; depth <= query.depth && frontier.length > 0; depth += 1) {
      const rows = await this.run(
        `UNWIND $frontier AS fid
         ${step}
         WHERE b.g = $g AND ($types IS NULL OR type(r) IN $types)
         RETURN DISTINCT b.id AS id`,
        { frontier, types: query.edgeTypes ?? null },
      );
      frontier = [];
      for (const row of rows) {
        const id = row.id as string;
        if (depthOf.has(id)) continue;
        depthOf.set(id, depth);
        frontier.push(id);
      }
    }
    depthOf.delete(query.from);
    if (depthOf.size === 0) return [];
    const rows = await this.run(
      `UNWIND $ids AS id MATCH (n:TNode {g: $g, id: id}) USING INDEX n:TNode(g, id)
       WHERE $label IS NULL OR $label IN n.labels
       RETURN ${NODE_PROJECTION} AS n`,
      { ids: [...depthOf.keys()], label: query.label ?? null },
    );
    const hits = rows
      .map((row) => {
        const node = decodeNode(row.n);
        return { node, depth: depthOf.get(node.id) ?? 0 };
      })
      .sort((a, b) => a.depth - b.depth || compareText(a.node.id, b.node.id));
    return query.limit === undefined ? hits : hits.slice(0, query.limit);
  }

  async similar(query: SimilarityQuery): Promise<SimilarHit[]> {
    assertIdentifier(query.label, 'label');
    assertCount(query.k, 'k', 10_000);
    assertVector(query.vector);
    if (query.excludeId !== undefined) assertNodeId(query.excludeId, 'excludeId');
    if (query.k === 0) return [];
    const dimension = query.vector.length;
    const [stored] = await this.run('MATCH (e:TEmb {g: $g}) RETURN e.dim AS dim LIMIT 1');
    if (!stored) return [];
    if (stored.dim !== dimension) {
      throw new EngineError(
        'invalid_argument',
        `This graph's embeddings have ${stored.dim} dimensions; got a query vector of ${dimension}`,
        { expected: stored.dim, actual: dimension },
      );
    }
    const { name, property } = vectorIndex(dimension);
    const params = {
      label: query.label,
      vector: query.vector,
      prop: property,
      dim: dimension,
      exclude: query.excludeId ?? null,
    };

    let candidates: Array<{ node: GraphNode; vec: number[] }> | null = null;
    // The vector index does not see this transaction's own uncommitted embeddings (the
    // full-text index does), so a transaction that wrote some scans exactly instead.
    const hasOwnEmbeddings = (this.attempt?.dimensions.size ?? 0) > 0;
    if (!hasOwnEmbeddings && dimension <= MAX_INDEXED_DIMENSION && (await this.vectors.isOnline(dimension))) {
      // The index spans every graph of the database: ask for more neighbours than k,
      // keep this graph's, and widen until k are found or the index has no more.
      for (let n = Math.max(4 * query.k + 1, 32); n <= MAX_VECTOR_CANDIDATES; n *= 4) {
        const [hits] = await this.run(
          `CALL db.index.vector.queryNodes($index, $n, $vector) YIELD node AS e
           WITH collect(e) AS hits
           RETURN size(hits) AS raw,
                  [e IN hits WHERE e.g = $g AND ($exclude IS NULL OR e.id <> $exclude) | e.id] AS ids`,
          { ...params, index: name, n: int(n) },
        );
        const ids = (hits?.ids as string[] | undefined) ?? [];
        const rows = await this.run(
          `UNWIND $ids AS id
           MATCH (n:TNode {g: $g, id: id}) USING INDEX n:TNode(g, id) WHERE $label IN n.labels
           MATCH (e:TEmb {g: $g, id: id}) USING INDEX e:TEmb(g, id)
           RETURN ${NODE_PROJECTION} AS n, e[$prop] AS vec`,
          { ...params, ids },
        );
        if (rows.length >= query.k || Number(hits?.raw ?? 0) < n) {
          candidates = rows.map((row) => ({ node: decodeNode(row.n), vec: row.vec as number[] }));
          break;
        }
      }
    }
    if (candidates === null) {
      const rows = await this.run(
        `MATCH (e:TEmb {g: $g}) WHERE e.dim = $dim AND ($exclude IS NULL OR e.id <> $exclude)
         MATCH (n:TNode {g: $g, id: e.id}) USING INDEX n:TNode(g, id) WHERE $label IN n.labels
         WITH n, e[$prop] AS vec
         ORDER BY vector.similarity.cosine(vec, $vector) DESC, n.id ASC
         LIMIT $k
         RETURN ${NODE_PROJECTION} AS n, vec`,
        { ...params, k: int(query.k) },
      );
      candidates = rows.map((row) => ({ node: decodeNode(row.n), vec: row.vec as number[] }));
    }
    // Scores are recomputed exactly: the index's are approximate and rescaled to [0, 1].
    return candidates
      .map(({ node, vec }) => ({ node, score: cosine(query.vector, vec) }))
      .sort((a, b) => b.score - a.score || compareText(a.node.id, b.node.id))
      .slice(0, query.k);
  }

  async hasEmbedding(id: string): Promise<boolean> {
    assertNodeId(id);
    const rows = await this.run(
      'MATCH (e:TEmb {g: $g, id: $id}) USING INDEX e:TEmb(g, id) RETURN count(e) AS c',
      { id },
    );
    return Number(rows[0]?.c ?? 0) > 0;
  }

  async getEmbeddings(ids: string[]): Promise<Map<string, number[]>> {
    if (!Array.isArray(ids)) throw new EngineError('invalid_argument', 'ids must be an array');
    const out = new Map<string, number[]>();
    for (let start = 0; start < ids.length; start += 1000) {
      const chunk = ids.slice(start, start + 1000).map(String);
      if (chunk.length === 0) continue;
      const rows = await this.run(
        'MATCH (e:TEmb {g: $g}) WHERE e.id IN $ids RETURN e.id AS id, e.dim AS dim, properties(e) AS p',
        { ids: chunk },
      );
      for (const row of rows) {
        const dim = Number(row.dim);
        const vector = (row.p as Record<string, unknown>)[vectorIndex(dim).property];
        if (Array.isArray(vector)) out.set(String(row.id), vector.map(Number));
      }
    }
    return out;
  }

  async createNode(node: GraphNode): Promise<GraphNode> {
    const attempt = this.writing();
    const clean = validNode(node);
    const claims = uniqueClaims(await this.uniqueRules(), clean);
    const stored = storedNode({ graph: this.graph, node: clean, token: attempt.token });
    let existing: Row | undefined;
    if (claims.length === 0) {
      // One statement: create unless the id is taken (then nothing is written).
      [existing] = await this.run(
        `OPTIONAL MATCH (x:TNode {g: $g, id: $id}) USING INDEX x:TNode(g, id)
         FOREACH (_ IN CASE WHEN x IS NULL THEN [1] ELSE [] END | CREATE (n:TNode) SET n = $stored, n:$(${realLabelsOf('$stored.labels')}))
         WITH x WHERE x IS NOT NULL
         RETURN x.tx AS tx, x {.id, .labels, .json} AS n`,
        { id: clean.id, stored },
      );
    } else {
      [existing] = await this.run(
        'MATCH (x:TNode {g: $g, id: $id}) USING INDEX x:TNode(g, id) RETURN x.tx AS tx, x {.id, .labels, .json} AS n',
        { id: clean.id },
      );
      if (!existing) {
        await this.assertUnclaimed(clean.id, claims);
        // The first claim is written with the node (`uk`); only further ones need syncClaims.
        stored.uk = claims[0]!.k;
        await this.run(`CREATE (n:TNode) SET n = $stored, n:$(${realLabelsOf('$stored.labels')})`, {
          stored,
        });
        if (claims.length > 1) await this.syncClaims(clean.id, claims);
      }
    }
    if (existing) {
      if (existing.tx === attempt.token && !attempt.created.has(clean.id)) {
        // An earlier attempt of this very write committed; its acknowledgement was lost.
        return decodeNode(existing.n);
      }
      throw new EngineError('exists', `Node ${clean.id} already exists`, { id: clean.id });
    }
    attempt.created.add(clean.id);
    return bare(clean);
  }

  /**
   * Creates the nodes with one UNWIND statement after checking the whole batch (ids and unique
   * claims, against the graph and within the batch), so a refused batch writes nothing even
   * when the caller catches the error and the transaction goes on. Nodes this logical write
   * created in an earlier attempt whose commit was acknowledged too late are taken as created.
   */
  async createNodes(nodes: GraphNode[]): Promise<GraphNode[]> {
    const attempt = this.writing();
    if (!Array.isArray(nodes)) throw new EngineError('invalid_argument', 'nodes must be a list');
    const clean = nodes.map(validNode);
    const ids = new Set<string>();
    for (const node of clean) {
      if (ids.has(node.id))
        throw new EngineError('exists', `Node ${node.id} appears twice in the batch`, { id: node.id });
      ids.add(node.id);
    }
    if (clean.length === 0) return [];
    const rules = await this.uniqueRules();
    // Claims of the whole batch (a node an earlier attempt created holds its own already): a
    // node's first claim is stored on the node itself (`uk`), its further ones as TUnique nodes.
    const claims: Array<{ k: string; owner: string }> = [];
    const extra: Array<{ k: string; owner: string }> = [];
    const byKey = new Map<string, UniqueClaim & { owner: string }>();
    const stored = clean.map(storedNodeOwn);
    if (rules.length > 0) {
      clean.forEach((node, i) => {
        uniqueClaims(rules, node).forEach((claim, n) => {
          const other = byKey.get(claim.k);
          if (other !== undefined) throw uniqueViolation(claim, other.owner);
          byKey.set(claim.k, { ...claim, owner: node.id });
          claims.push({ k: claim.k, owner: node.id });
          if (n === 0) (stored[i] as Props).uk = claim.k;
          else extra.push({ k: claim.k, owner: node.id });
        });
      });
    }
    // One statement checks the batch and, only when nothing refuses it, writes it: ids taken
    // (by another write, or by this attempt), values claimed by other nodes.
    const [outcome] = await this.run(CREATE_NODES, {
      ids: [...ids],
      mine: [...ids].filter((id) => attempt.created.has(id)),
      token: attempt.token,
      claims,
      extra,
      stored,
    });
    const taken = (outcome?.taken as Array<{ id: string }> | undefined) ?? [];
    if (taken[0] !== undefined) {
      throw new EngineError('exists', `Node ${taken[0].id} already exists`, { id: taken[0].id });
    }
    const held = (outcome?.held as Array<{ k: string; owner: string }> | undefined) ?? [];
    if (held[0] !== undefined) throw uniqueViolation(byKey.get(held[0].k), held[0].owner);
    // What is left in `existing` was created by an earlier attempt of this very write, whose
    // commit succeeded but whose acknowledgement was lost.
    const earlier = new Map<string, GraphNode>();
    for (const row of (outcome?.existing as Row[] | undefined) ?? []) {
      earlier.set(row.id as string, decodeNode(row));
    }
    for (const node of clean) if (!earlier.has(node.id)) attempt.created.add(node.id);
    return clean.map((node) => earlier.get(node.id) ?? bare(node));
  }

  async putNode(node: GraphNode): Promise<GraphNode> {
    const attempt = this.writing();
    const clean = validNode(node);
    const claims = uniqueClaims(await this.uniqueRules(), clean);
    await this.assertUnclaimed(clean.id, claims);
    await this.run(
      `MERGE (n:TNode {g: $g, id: $id})
       REMOVE n:$(${realLabelsOn('n')})
       SET n = $stored, n:$(${realLabelsOf('$stored.labels')})`,
      {
        id: clean.id,
        stored: storedNode({ graph: this.graph, node: clean, token: attempt.token }),
      },
    );
    await this.syncClaims(clean.id, claims);
    return bare(clean);
  }

  async updateNode(id: string, update: NodeUpdate): Promise<GraphNode> {
    const attempt = this.writing();
    assertNodeId(id);
    const rows = await this.run(
      'MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id) RETURN n.labels AS labels',
      { id },
    );
    if (!rows[0]) throw new EngineError('not_found', `Node ${id} does not exist`, { id });
    const clean = validNode({
      id,
      labels: update.labels ?? (rows[0].labels as string[]),
      props: update.props,
      searchText: update.searchText,
    });
    const claims = uniqueClaims(await this.uniqueRules(), clean);
    await this.assertUnclaimed(id, claims);
    // A node given its search text keeps it (`ft`, `fts`) through an update that gives none.
    await this.run(
      `MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id)
       WITH n, CASE WHEN $keep AND n.fts = true THEN n.ft ELSE null END AS kept
       REMOVE n:$(${realLabelsOn('n')})
       SET n = $stored, n:$(${realLabelsOf('$stored.labels')})
       FOREACH (_ IN CASE WHEN kept IS NULL THEN [] ELSE [1] END | SET n.ft = kept, n.fts = true)`,
      {
        id,
        keep: clean.searchText === undefined,
        stored: storedNode({ graph: this.graph, node: clean, token: attempt.token }),
      },
    );
    await this.syncClaims(id, claims);
    return bare(clean);
  }

  async deleteNode(id: string): Promise<boolean> {
    this.writing();
    assertNodeId(id);
    const rows = await this.run(
      `MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id)
       OPTIONAL MATCH (e:TEmb {g: $g, id: $id}) USING INDEX e:TEmb(g, id)
       DETACH DELETE n, e
       RETURN count(*) AS deleted`,
      { id },
    );
    if (Number(rows[0]?.deleted ?? 0) === 0) return false;
    await this.run('MATCH (u:TUnique {g: $g, owner: $id}) USING INDEX u:TUnique(g, owner) DELETE u', { id });
    return true;
  }

  async mergeEdge(edge: GraphEdge): Promise<MergeEdgeResult> {
    const [result] = await this.mergeEdges([edge]);
    return result as MergeEdgeResult;
  }

  /**
   * Merges the edges, each as mergeEdge would, with one read and one MERGE statement per edge
   * type (types are validated identifiers spliced into the query; everything else is a
   * parameter). Results follow input order; a repeated edge sees the earlier one. Invalid
   * input rejects the batch before anything is written. Idempotent, as MERGE is.
   */
  async mergeEdges(edges: GraphEdge[]): Promise<MergeEdgeResult[]> {
    this.writing();
    if (!Array.isArray(edges)) throw new EngineError('invalid_argument', 'edges must be a list');
    const clean = edges.map((edge) => {
      if (typeof edge !== 'object' || edge === null)
        throw new EngineError('invalid_argument', 'An edge is an object');
      const type = edgeType(edge.type);
      assertNodeId(edge.from, 'from');
      assertNodeId(edge.to, 'to');
      const props = edge.props ?? {};
      assertProps(props, 'edge props');
      return { from: edge.from, type, to: edge.to, props, canonical: canonicalJson(props) };
    });
    const byType = new Map<string, typeof clean>();
    for (const edge of clean) {
      const group = byType.get(edge.type);
      if (group === undefined) byType.set(edge.type, [edge]);
      else group.push(edge);
    }
    const key = (edge: { from: string; type: string; to: string }) =>
      JSON.stringify([edge.from, edge.type, edge.to]);
    // The last props given for each edge are what it holds after the call.
    const last = new Map<string, { from: string; to: string; json: string; canonical: string }>();
    for (const edge of clean) {
      last.set(key(edge), {
        from: edge.from,
        to: edge.to,
        json: JSON.stringify(edge.props),
        canonical: edge.canonical,
      });
    }
    // Per type one statement reads each edge's props before the call and merges it, writing
    // only when the props differ (as strings: a canonically equal rewrite is harmless).
    const current = new Map<string, string | null>();
    for (const type of byType.keys()) {
      const rows = [...last.entries()]
        .filter(([k]) => (JSON.parse(k) as string[])[1] === type)
        .map(([, edge]) => ({ from: edge.from, to: edge.to, json: edge.json }));
      const found = await this.run(
        `UNWIND $rows AS e
         MATCH (a:TNode {g: $g, id: e.from}), (b:TNode {g: $g, id: e.to})
         USING INDEX a:TNode(g, id) USING INDEX b:TNode(g, id)
         OPTIONAL MATCH (a)-[old:\`${type}\`]->(b)
         WITH a, b, e, old.json AS before
         CALL {
           WITH a, b, e, before
           WITH * WHERE before IS NULL OR before <> e.json
           MERGE (a)-[r:\`${type}\`]->(b)
           SET r.json = e.json
         }
         RETURN e.from AS from, e.to AS to, before`,
        { rows },
      );
      for (const row of found) {
        const json = row.before === null ? null : canonicalJson(JSON.parse(row.before as string));
        current.set(key({ from: row.from as string, type, to: row.to as string }), json);
      }
    }
    const results = clean.map((edge): MergeEdgeResult => {
      const k = key(edge);
      if (!current.has(k)) return 'missing_endpoint';
      const before = current.get(k);
      if (before === edge.canonical) return 'unchanged';
      current.set(k, edge.canonical);
      return before === null ? 'created' : 'updated';
    });
    return results;
  }

  async deleteEdge(edge: { from: string; type: string; to: string }): Promise<boolean> {
    this.writing();
    const type = edgeType(edge.type);
    assertNodeId(edge.from, 'from');
    assertNodeId(edge.to, 'to');
    const rows = await this.run(
      `MATCH (a:TNode {g: $g, id: $from})-[r:\`${type}\`]->(b:TNode {g: $g, id: $to})
       USING INDEX a:TNode(g, id)
       DELETE r
       RETURN count(*) AS deleted`,
      { from: edge.from, to: edge.to },
    );
    return Number(rows[0]?.deleted ?? 0) > 0;
  }

  async setEmbedding(id: string, vector: number[]): Promise<void> {
    const attempt = this.writing();
    assertNodeId(id);
    assertVector(vector);
    const rows = await this.run(
      `OPTIONAL MATCH (n:TNode {g: $g, id: $id}) USING INDEX n:TNode(g, id)
       OPTIONAL MATCH (other:TEmb {g: $g}) WHERE other.id <> $id
       WITH n, other LIMIT 1
       RETURN n IS NOT NULL AS has, other.dim AS dim`,
      { id },
    );
    if (!rows[0]?.has) throw new EngineError('not_found', `Node ${id} does not exist`, { id });
    const dim = rows[0].dim as number | null;
    if (dim !== null && dim !== vector.length) {
      throw new EngineError(
        'invalid_argument',
        `This graph's embeddings have ${dim} dimensions; got a vector of ${vector.length}`,
        { expected: dim, actual: vector.length },
      );
    }
    const { property } = vectorIndex(vector.length);
    await this.run('MERGE (e:TEmb {g: $g, id: $id}) SET e = $stored', {
      id,
      stored: { g: this.graph, id, dim: int(vector.length), [property]: vector },
    });
    attempt.dimensions.add(vector.length);
  }

  async deleteEmbedding(id: string): Promise<boolean> {
    this.writing();
    assertNodeId(id);
    const rows = await this.run(
      'MATCH (e:TEmb {g: $g, id: $id}) USING INDEX e:TEmb(g, id) WITH e, 1 AS one DELETE e RETURN count(one) AS c',
      { id },
    );
    return Number(rows[0]?.c ?? 0) > 0;
  }

  async appendAudit(entry: AuditEntryInput): Promise<AuditRecord> {
    const attempt = this.writing();
    for (const field of ['actor', 'action', 'target'] as const) {
      if (typeof entry[field] !== 'string' || entry[field].length === 0) {
        throw new EngineError('invalid_argument', `The audit entry needs a non-empty ${field}`);
      }
    }
    if (entry.data !== undefined) assertProps(entry.data, 'audit data');
    await attempt.locked;
    const op = `${attempt.token}:${attempt.auditCalls}`;
    attempt.auditCalls += 1;
    // The graph's write lock is held (see Neo4jGraph.write), so the last record cannot change
    // under us; the (g, seq) constraint would refuse a second record with the same seq anyway.
    if (attempt.retry) {
      // Only a retried write can find its own record (committed, acknowledgement lost).
      const [same] = await this.run(
        'MATCH (same:TAudit {g: $g, op: $op}) USING INDEX same:TAudit(g, op) RETURN same {.*} AS same',
        { op },
      );
      if (same) return decodeAudit(same.same as Row);
    }
    if (attempt.lastAudit === undefined) {
      const [row] = await this.run(LAST_AUDIT);
      const last = row?.last as { seq: unknown; hash: unknown } | undefined;
      attempt.lastAudit = last === undefined ? null : { seq: Number(last.seq), hash: String(last.hash) };
    }
    const seq = (attempt.lastAudit?.seq ?? 0) + 1;
    const prevHash = attempt.lastAudit?.hash ?? GENESIS_HASH;
    const ts = new Date().toISOString();
    const { actor, action, target, data } = entry;
    const hash = auditMac(this.auditKey, prevHash, { seq, ts, actor, action, target, data });
    const stored: Props = { g: this.graph, op, seq: int(seq), ts, actor, action, target, prevHash, hash };
    if (data !== undefined) stored.data = JSON.stringify(data);
    await this.run('CREATE (a:TAudit) SET a = $stored', { stored });
    attempt.lastAudit = { seq, hash };
    return { seq, ts, actor, action, target, ...(data !== undefined ? { data } : {}), prevHash, hash };
  }

  /** The graph's unique rules, read once per attempt (rules only change under the graph's write lock). */
  private async uniqueRules(): Promise<UniqueRule[]> {
    const attempt = this.writing();
    await attempt.locked;
    if (attempt.rules === undefined) {
      const rows = await this.run('MATCH (r:TUniqueRule {g: $g}) RETURN r.label AS label, r.prop AS prop');
      attempt.rules = rows.map((row) => ({ label: row.label as string, prop: row.prop as string }));
    }
    return attempt.rules;
  }

  /** Refuses claims another node holds, before anything is written. */
  async assertUnclaimed(owner: string, claims: UniqueClaim[]): Promise<void> {
    if (claims.length === 0) return;
    const [row] = await this.run(`${HELD_CLAIMS} RETURN held`, {
      claims: claims.map((claim) => ({ k: claim.k, owner })),
    });
    const [held] = (row?.held as Array<{ k: string; owner: string }> | undefined) ?? [];
    if (held !== undefined) {
      throw uniqueViolation(
        claims.find((c) => c.k === held.k),
        held.owner,
      );
    }
  }

  /**
   * Makes `owner`'s claims exactly `claims` (every claim it makes under the graph's rules):
   * releases the others, takes the new ones. The node keeps one claim as its own `uk` (the one
   * it has when that stays claimed, else the first), the others are TUnique nodes.
   */
  async syncClaims(owner: string, claims: UniqueClaim[]): Promise<void> {
    await this.attempt?.locked;
    if (claims.length === 0 && (this.attempt?.rules?.length ?? 0) === 0) return;
    await this.run(
      `MATCH (n:TNode {g: $g, id: $owner}) USING INDEX n:TNode(g, id)
       WITH n, CASE WHEN n.uk IN $keys THEN n.uk ELSE $keys[0] END AS first
       SET n.uk = first
       WITH first
       OPTIONAL MATCH (u:TUnique {g: $g, owner: $owner}) USING INDEX u:TUnique(g, owner)
       WHERE u.k = first OR NOT u.k IN $keys
       DELETE u
       WITH first, count(*) AS released
       UNWIND [k IN $keys WHERE k <> first] AS k
       MERGE (c:TUnique {g: $g, k: k}) ON CREATE SET c.owner = $owner`,
      { owner, keys: claims.map((claim) => claim.k) },
    );
  }
}

/** The EngineError for a value already claimed by `owner`. */
export function uniqueViolation(claim: UniqueClaim | undefined, owner: string): EngineError {
  return new EngineError(
    'unique_violation',
    `Another ${claim?.label ?? ''} node (${owner}) already has ${claim?.prop ?? 'this'} = ${JSON.stringify(claim?.value)}`,
    { label: claim?.label, prop: claim?.prop, value: claim?.value, conflictingId: owner },
  );
}

/** Decodes a `TAudit` node's properties; data that is not JSON (a tampered record) stays a string, so its hash fails. */
export function decodeAudit(row: Row): AuditRecord {
  const record: AuditRecord = {
    seq: Number(row.seq),
    ts: String(row.ts),
    actor: String(row.actor),
    action: String(row.action),
    target: String(row.target),
    prevHash: String(row.prevHash),
    hash: String(row.hash),
  };
  if (row.data !== null && row.data !== undefined) {
    try {
      record.data = JSON.parse(String(row.data)) as Props;
    } catch {
      record.data = { unparseable: String(row.data) };
    }
  }
  return {
    seq: record.seq,
    ts: record.ts,
    actor: record.actor,
    action: record.action,
    target: record.target,
    ...(record.data !== undefined ? { data: record.data } : {}),
    prevHash: record.prevHash,
    hash: record.hash,
  };
}

function validNode(node: GraphNode): GraphNode {
  if (typeof node !== 'object' || node === null)
    throw new EngineError('invalid_argument', 'A node is an object');
  assertNodeId(node.id);
  assertLabels(node.labels);
  assertProps(node.props);
  assertSearchText(node.searchText);
  // What a JSON round trip keeps is what the node is: undefined members dropped. The text is
  // kept as `propsJson`, which storedNodeOwn stores instead of serializing the props again.
  const json = typeof node.propsJson === 'string' ? node.propsJson : JSON.stringify(node.props);
  const clean: GraphNode = {
    id: node.id,
    labels: [...node.labels],
    props: JSON.parse(json) as Props,
    propsJson: json,
  };
  if (node.searchText !== undefined) clean.searchText = node.searchText;
  return clean;
}

/** A node as reads return it: no search text. */
function bare(node: GraphNode): GraphNode {
  return { id: node.id, labels: node.labels, props: node.props };
}

function edgeType(type: unknown): string {
  assertIdentifier(type, 'edge type');
  return type;
}

function assertVector(vector: unknown): asserts vector is number[] {
  if (
    !Array.isArray(vector) ||
    vector.length === 0 ||
    vector.length > MAX_DIMENSION ||
    !vector.every((x) => typeof x === 'number' && Number.isFinite(x))
  ) {
    throw new EngineError('invalid_argument', 'A vector is a non-empty list of finite numbers');
  }
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
