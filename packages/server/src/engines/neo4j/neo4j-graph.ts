import { randomUUID } from 'node:crypto';
import { int, isRetryableError, type ManagedTransaction, type Session } from 'neo4j-driver';
import {
  type AuditEntryInput,
  type AuditFilter,
  type AuditPage,
  type AuditRecord,
  type AuditVerdict,
  type CallOptions,
  type EdgeQuery,
  EngineError,
  type Graph,
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
  type VerifyAuditOptions,
} from '../port';
import { verifyAuditChain } from '../shared/audit-chain';
import { AUDIT_MATCH_FIELDS, assertAuditFilter } from '../shared/audit-filter';
import { assertCount, assertIdentifier, assertNodeId } from '../shared/identifiers';
import {
  decodeAudit,
  GraphOps,
  LAST_AUDIT,
  newWriteAttempt,
  type VectorIndexState,
  type WriteAttempt,
} from './graph-ops';
import type { PointReads } from './point-reads';
import { nodeJsonOf, realLabel } from './stored-node';
import { toEngineError } from './to-engine-error';
import { type UniqueRule, uniqueClaims } from './unique-claims';

/**
 * The driver's transaction config for a call with a deadline: the time left as the
 * transaction's timeout (the server ends it then, TransactionTimedOut). A deadline already
 * past is EngineError `timeout` at once.
 */
function transactionConfig(options: CallOptions | undefined): { timeout: number } | undefined {
  if (options?.deadline === undefined) return undefined;
  const left = Math.ceil(options.deadline - Date.now());
  if (left <= 0) {
    throw new EngineError('timeout', 'The query reached its deadline before it started', { timeoutMs: 0 });
  }
  return { timeout: left };
}

/** Attempts of an auto-commit read (see Neo4jGraph.readOnce). */
const READ_ATTEMPTS = 3;

/** What a graph needs from its engine. */
export interface GraphContext {
  /** Opens a session on the database holding the graph's data. */
  openSession(mode: 'READ' | 'WRITE'): Session;
  vectors: VectorIndexState;
  /** Creates the vector indexes of dimensions written by a committed transaction. */
  ensureVectorIndexes(dimensions: Iterable<number>): Promise<void>;
  /** The key of the audit chain's HMAC. */
  auditKey: Uint8Array;
  /** The coalesced point reads of the graph's database (point-reads.ts). */
  pointReads: PointReads;
}

/**
 * One graph on Neo4j. Each call outside `transaction` is its own managed transaction; writes
 * first take the graph's write lock (its `TGraphHead` node), so the writes to one graph are
 * serialized as the port promises and a read-then-write inside a transaction cannot race
 * another. The driver retries a transaction function after transient failures, which the
 * writes tolerate (see WriteAttempt).
 */
export class Neo4jGraph implements Graph {
  constructor(
    readonly name: string,
    private readonly context: GraphContext,
  ) {}

  private async read<T>(fn: (ops: GraphOps) => Promise<T>, options?: CallOptions): Promise<T> {
    const config = transactionConfig(options);
    const session = this.context.openSession('READ');
    try {
      return await session.executeRead(
        (tx) => fn(new GraphOps(tx, this.name, this.context.vectors, null, this.context.auditKey)),
        config,
      );
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  /**
   * A read of one statement as an auto-commit transaction (`session.run`): RUN and PULL go out
   * together, one Bolt round trip, where a managed transaction adds BEGIN and COMMIT. On a
   * cluster the session shares the engine's bookmark manager, so it still sees every committed
   * write.
   * Retried (a few times) after a failure the driver calls retryable, as executeRead would.
   */
  private async readOnce<T>(fn: (ops: GraphOps) => Promise<T>, options?: CallOptions): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const config = transactionConfig(options);
      const session = this.context.openSession('READ');
      const runner = {
        run: (query: string, params?: Record<string, unknown>) => session.run(query, params, config),
      };
      try {
        return await fn(new GraphOps(runner, this.name, this.context.vectors, null, this.context.auditKey));
      } catch (error) {
        if (attempt >= READ_ATTEMPTS || !isRetryableError(error as Error)) throw toEngineError(error);
      } finally {
        await session.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }

  private async write<T>(
    fn: (ops: GraphOps, tx: ManagedTransaction, attempt: WriteAttempt) => Promise<T>,
    options?: CallOptions,
  ): Promise<T> {
    const config = transactionConfig(options);
    const token = randomUUID();
    const session = this.context.openSession('WRITE');
    let dimensions = new Set<number>();
    let attempts = 0;
    try {
      const result = await session.executeWrite(async (tx) => {
        attempts += 1;
        const attempt = newWriteAttempt(token, attempts > 1);
        // The lock statement goes out now and `fn`'s first statements follow it on the same
        // connection without waiting for its answer: the server runs them in order, so they run
        // under the lock, and a write saves a round trip. What needs the lock's answer (the
        // unique rules, the last audit record) waits for `attempt.locked`; the lock's failure
        // (e.g. no such graph) wins over `fn`'s, and no attempt commits before the lock is held.
        const locked = this.lock(tx).then(({ rules, lastAudit }) => {
          attempt.rules = rules;
          attempt.lastAudit = lastAudit;
        });
        locked.catch(() => {});
        attempt.locked = locked;
        let value: T;
        try {
          value = await fn(
            new GraphOps(tx, this.name, this.context.vectors, attempt, this.context.auditKey),
            tx,
            attempt,
          );
        } catch (error) {
          await locked;
          throw error;
        }
        await locked;
        dimensions = attempt.dimensions;
        return value;
      }, config);
      if (dimensions.size > 0) await this.context.ensureVectorIndexes(dimensions);
      return result;
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  /**
   * Takes the graph's write lock for the rest of the transaction and returns, in the same round
   * trip, the graph's unique rules and its last audit record (both only change under the lock,
   * so they hold for the whole attempt).
   */
  private async lock(
    tx: ManagedTransaction,
  ): Promise<{ rules: UniqueRule[]; lastAudit: { seq: number; hash: string } | null }> {
    const result = await tx.run(
      `MATCH (h:TGraphHead {g: $g}) SET h.writes = coalesce(h.writes, 0) + 1
       WITH h OPTIONAL MATCH (r:TUniqueRule {g: $g})
       WITH h, collect(r {.label, .prop}) AS rules
       RETURN h.g AS g, rules, COLLECT { ${LAST_AUDIT} } AS last`,
      { g: this.name },
    );
    const record = result.records[0];
    if (record === undefined) {
      throw new EngineError('not_found', `Graph ${this.name} does not exist`, { graph: this.name });
    }
    const [last] = record.get('last') as Array<{ seq: unknown; hash: unknown }>;
    return {
      rules: (record.get('rules') as UniqueRule[]).map(({ label, prop }) => ({ label, prop })),
      lastAudit: last === undefined ? null : { seq: Number(last.seq), hash: String(last.hash) },
    };
  }

  /**
   * One managed write transaction holding the graph's write lock. After a transient failure
   * the driver rolls back and runs `fn` again, so `fn` should keep its side effects to `tx`.
   */
  transaction<T>(fn: (tx: GraphWriter) => Promise<T>, options?: CallOptions): Promise<T> {
    return this.write((ops) => fn(ops), options);
  }

  /** Coalesced with the other point reads of this turn into one statement (point-reads.ts). */
  async getNode(id: string): Promise<GraphNode | null> {
    assertNodeId(id);
    return this.context.pointReads.node(this.name, id);
  }

  getNodes(ids: string[]): Promise<GraphNode[]> {
    return this.readOnce((ops) => ops.getNodes(ids));
  }

  /** With a deadline, the read transaction's timeout is the time left (the server stops it). */
  findNodes(query: NodeQuery, options?: CallOptions): Promise<NodePage> {
    return this.read((ops) => ops.findNodes(query), options);
  }

  /** The edges from one node (of any type or one) are a point read, coalesced as getNode's. */
  async getEdges(query: EdgeQuery): Promise<GraphEdge[]> {
    if (query.from !== undefined && query.to === undefined) {
      assertNodeId(query.from, 'from');
      if (query.type !== undefined) assertIdentifier(query.type, 'edge type');
      return this.context.pointReads.edges(this.name, query.from, query.type ?? null);
    }
    return this.readOnce((ops) => ops.getEdges(query));
  }

  /**
   * Both point reads asked in the same turn: they go out in one coalesced statement with the
   * other point reads of the turn (point-reads.ts). Inside a transaction, GraphOps' own statement.
   */
  /** getNodeWithEdges' read, the props given back as their stored text (stored-node.ts nodeJsonOf). */
  async getNodeJsonWithEdges(id: string): Promise<NodeJsonWithEdges | null> {
    return nodeJsonOf(await this.getNodeWithEdges(id));
  }

  async getNodeWithEdges(id: string): Promise<NodeWithEdges | null> {
    assertNodeId(id);
    const [node, edges] = await Promise.all([
      this.context.pointReads.node(this.name, id),
      this.context.pointReads.edges(this.name, id, null),
    ]);
    return node === null ? null : { node, edges };
  }

  traverse(query: TraversalQuery): Promise<TraversalHit[]> {
    return this.read((ops) => ops.traverse(query));
  }

  similar(query: SimilarityQuery): Promise<SimilarHit[]> {
    return this.read((ops) => ops.similar(query));
  }

  hasEmbedding(id: string): Promise<boolean> {
    return this.readOnce((ops) => ops.hasEmbedding(id));
  }

  getEmbeddings(ids: string[]): Promise<Map<string, number[]>> {
    return this.read((ops) => ops.getEmbeddings(ids));
  }

  createNode(node: GraphNode): Promise<GraphNode> {
    return this.write((ops) => ops.createNode(node));
  }

  createNodes(nodes: GraphNode[]): Promise<GraphNode[]> {
    return this.write((ops) => ops.createNodes(nodes));
  }

  putNode(node: GraphNode): Promise<GraphNode> {
    return this.write((ops) => ops.putNode(node));
  }

  updateNode(id: string, update: NodeUpdate): Promise<GraphNode> {
    return this.write((ops) => ops.updateNode(id, update));
  }

  deleteNode(id: string): Promise<boolean> {
    return this.write((ops) => ops.deleteNode(id));
  }

  mergeEdge(edge: GraphEdge): Promise<MergeEdgeResult> {
    return this.write((ops) => ops.mergeEdge(edge));
  }

  mergeEdges(edges: GraphEdge[]): Promise<MergeEdgeResult[]> {
    return this.write((ops) => ops.mergeEdges(edges));
  }

  deleteEdge(edge: { from: string; type: string; to: string }): Promise<boolean> {
    return this.write((ops) => ops.deleteEdge(edge));
  }

  setEmbedding(id: string, vector: number[]): Promise<void> {
    return this.write((ops) => ops.setEmbedding(id, vector));
  }

  deleteEmbedding(id: string): Promise<boolean> {
    return this.write((ops) => ops.deleteEmbedding(id));
  }

  appendAudit(entry: AuditEntryInput): Promise<AuditRecord> {
    return this.write((ops) => ops.appendAudit(entry));
  }

  async ensureUnique(label: string, prop: string): Promise<void> {
    assertIdentifier(label, 'label');
    assertIdentifier(prop, 'property name');
    await this.write(async (ops, tx, attempt) => {
      const rule = await tx.run(
        `MERGE (r:TUniqueRule {g: $g, label: $label, prop: $prop})
         ON CREATE SET r.tx = $token
         RETURN r.tx = $token AS isNew`,
        { g: this.name, label, prop, token: attempt.token },
      );
      if (!rule.records[0]?.get('isNew')) return;
      // A new rule: every node already carrying the label claims its value, and duplicates
      // refuse the rule (the transaction rolls back, leaving no rule behind). syncClaims sets a
      // node's claims under every rule, so the claims of the earlier rules are kept.
      await attempt.locked;
      const earlier = attempt.rules ?? [];
      const rules = [{ label, prop }];
      const rows = await tx.run(
        `MATCH (n:TNode:${realLabel(label)} {g: $g}) RETURN n.id AS id, n.labels AS labels, n.json AS json`,
        { g: this.name, label },
      );
      const seen = new Map<string, string>();
      for (const record of rows.records) {
        const node = {
          id: record.get('id') as string,
          labels: record.get('labels') as string[],
          props: JSON.parse(record.get('json') as string) as Props,
        };
        const claims = uniqueClaims(rules, node);
        for (const claim of claims) {
          const holder = seen.get(claim.k);
          if (holder !== undefined) {
            throw new EngineError(
              'unique_violation',
              `Cannot make ${label}.${prop} unique: ${holder} and ${node.id} share the value ${JSON.stringify(claim.value)}`,
              { label, prop, value: claim.value, conflictingId: holder },
            );
          }
          seen.set(claim.k, node.id);
        }
        if (claims.length > 0) await ops.syncClaims(node.id, [...uniqueClaims(earlier, node), ...claims]);
      }
    });
  }

  async auditRecords(options: { afterSeq?: number; limit?: number } = {}): Promise<AuditRecord[]> {
    assertCount(options.afterSeq, 'afterSeq');
    assertCount(options.limit, 'limit');
    const session = this.context.openSession('READ');
    try {
      const result = await session.executeRead((tx) =>
        tx.run(
          `MATCH (a:TAudit {g: $g}) USING INDEX a:TAudit(g, seq) WHERE a.seq > $after
           WITH a ORDER BY a.g, a.seq ${options.limit === undefined ? '' : 'LIMIT $limit'}
           RETURN a {.*} AS a`,
          { g: this.name, after: int(options.afterSeq ?? 0), limit: int(options.limit ?? 0) },
        ),
      );
      return result.records.map((record) => decodeAudit(record.get('a') as Record<string, unknown>));
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  async findAudit(filter: AuditFilter): Promise<AuditPage> {
    assertAuditFilter(filter);
    const conditions = ['a.seq IS NOT NULL'];
    const params: Record<string, unknown> = { g: this.name };
    for (const field of AUDIT_MATCH_FIELDS) {
      const match = filter[field];
      if (match === undefined) continue;
      if ('in' in match) {
        conditions.push(`a.${field} IN $${field}`);
        params[field] = match.in;
      } else {
        conditions.push(`a.${field} STARTS WITH $${field}`);
        params[field] = match.prefix;
      }
    }
    if (filter.since !== undefined) {
      conditions.push('a.ts >= $since');
      params.since = filter.since;
    }
    if (filter.until !== undefined) {
      conditions.push('a.ts < $until');
      params.until = filter.until;
    }
    const where = conditions.join(' AND ');
    // Ordering by the whole (g, seq) index key lets Neo4j walk the index instead of sorting.
    const order = filter.order === 'asc' ? 'ASC' : 'DESC';
    params.skip = int(filter.offset ?? 0);
    params.limit = int(filter.limit ?? 0);
    const session = this.context.openSession('READ');
    try {
      return await session.executeRead(async (tx) => {
        const counted =
          filter.total === false
            ? null
            : await tx.run(`MATCH (a:TAudit {g: $g}) WHERE ${where} RETURN count(a) AS total`, params);
        const page = await tx.run(
          `MATCH (a:TAudit {g: $g}) WHERE ${where}
           WITH a ORDER BY a.g ${order}, a.seq ${order} SKIP $skip ${filter.limit === undefined ? '' : 'LIMIT $limit'}
           RETURN a {.*} AS a`,
          params,
        );
        return {
          records: page.records.map((record) => decodeAudit(record.get('a') as Record<string, unknown>)),
          total: counted === null ? -1 : Number(counted.records[0]?.get('total') ?? 0),
        };
      });
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  async verifyAudit(options?: VerifyAuditOptions): Promise<AuditVerdict> {
    const session = this.context.openSession('READ');
    try {
      const result = await session.executeRead((tx) =>
        tx.run(
          `MATCH (a:TAudit {g: $g}) USING INDEX a:TAudit(g, seq) WHERE a.seq IS NOT NULL
           WITH a ORDER BY a.g, a.seq RETURN a {.*} AS a
           UNION ALL
           MATCH (a:TAudit {g: $g}) WHERE a.seq IS NULL RETURN a {.*} AS a`,
          { g: this.name },
        ),
      );
      return verifyAuditChain(
        this.name,
        result.records.map((record) => decodeAudit(record.get('a') as Record<string, unknown>)),
        this.context.auditKey,
        options,
      );
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }
}
