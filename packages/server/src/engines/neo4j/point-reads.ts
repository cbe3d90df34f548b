import { isRetryableError, type QueryResult, type Session } from 'neo4j-driver';
import type { GraphEdge, GraphNode, Props } from '../port';

import { toEngineError } from './to-engine-error';

/** Most reads of one statement; a turn with more sends several. */
const MAX_BATCH = 500;

/** Attempts of a batch after failures the driver calls retryable (as Neo4jGraph.readOnce). */
const ATTEMPTS = 3;

const NODES = `CALL {
    UNWIND $nodes AS k
    MATCH (n:TNode {g: k.g, id: k.id}) USING INDEX n:TNode(g, id)
    RETURN collect([k.i, n.id, n.labels, n.json]) AS nodes
  }`;

// Ordered as getEdges orders (from, type, to; `from` is fixed per read).
const EDGES = `CALL {
    UNWIND $edges AS k
    MATCH (a:TNode {g: k.g, id: k.from})-[r]->(b:TNode) USING INDEX a:TNode(g, id)
    WHERE k.type IS NULL OR type(r) = k.type
    WITH k, type(r) AS type, b.id AS to, r.json AS json ORDER BY k.i, type, to
    RETURN collect([k.i, type, to, json]) AS edges
  }`;

/** The statement of a batch with node reads, edge reads, or both: three fixed texts, each planned once. */
const STATEMENT = {
  nodes: `${NODES} RETURN nodes, [] AS edges`,
  edges: `${EDGES} RETURN [] AS nodes, edges`,
  both: `${NODES} ${EDGES} RETURN nodes, edges`,
} as const;

interface NodeRead {
  kind: 'node';
  key: string;
  g: string;
  id: string;
  resolve(node: GraphNode | null): void;
  reject(error: unknown): void;
}

interface EdgeRead {
  kind: 'edges';
  key: string;
  g: string;
  from: string;
  type: string | null;
  resolve(edges: GraphEdge[]): void;
  reject(error: unknown): void;
}

type PendingRead = NodeRead | EdgeRead;

/** A node as the statement returns it: flat values, no map for the driver to build per node. */
type NodeRow = [number, string, string[], string];
type EdgeRow = [number, string, string, string | null];

/**
 * The point reads of one Neo4j database outside transactions — `getNode(id)` and
 * `getEdges({from})` (with or without `type`) of any graph in it — coalesced per turn of the
 * event loop: every read asked for in one turn (a content GET asks for its item and its edges
 * at once; the requests that waited for the same access-epoch read go on in the same turn)
 * waits for the turn's end (`setImmediate`) and goes out with the others as one auto-commit
 * statement (UNWIND of the keys, `USING INDEX TNode(g, id)`): one session, one Bolt round
 * trip and one statement for the turn, where each read was a session and a round trip of its
 * own. The same key asked twice in a turn is read once; each caller gets objects of its own.
 *
 * Read-your-writes holds as for a read of its own: a batch is sent only after each of its
 * reads was asked for, so it sees every write committed before any of them was (on a
 * cluster through the engine's shared bookmark manager). A failure the driver calls retryable
 * sends the batch again (up to three times); any other failure rejects each of its reads.
 */
export class PointReads {
  #queue: PendingRead[] = [];
  #scheduled = false;
  readonly #stats = { batches: 0, reads: 0 };

  constructor(private readonly openSession: () => Session) {}

  /** Batches sent and reads answered so far (tests and diagnostics). */
  stats(): { batches: number; reads: number } {
    return { ...this.#stats };
  }

  node(g: string, id: string): Promise<GraphNode | null> {
    return new Promise((resolve, reject) => {
      this.#add({ kind: 'node', key: `${g}\u0000${id}`, g, id, resolve, reject });
    });
  }

  edges(g: string, from: string, type: string | null): Promise<GraphEdge[]> {
    return new Promise((resolve, reject) => {
      this.#add({
        kind: 'edges',
        key: `${g}\u0000${from}\u0000${type ?? ''}`,
        g,
        from,
        type,
        resolve,
        reject,
      });
    });
  }

  #add(read: PendingRead): void {
    this.#queue.push(read);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const queue = this.#queue;
      this.#queue = [];
      for (let at = 0; at < queue.length; at += MAX_BATCH) {
        void this.#send(queue.slice(at, at + MAX_BATCH));
      }
    });
  }

  async #send(reads: PendingRead[]): Promise<void> {
    // One key per distinct read; `i` maps the answers back.
    const index = new Map<string, number>();
    const nodes: Array<{ i: number; g: string; id: string }> = [];
    const edges: Array<{ i: number; g: string; from: string; type: string | null }> = [];
    for (const read of reads) {
      if (index.has(read.key)) continue;
      const i = index.size;
      index.set(read.key, i);
      if (read.kind === 'node') nodes.push({ i, g: read.g, id: read.id });
      else edges.push({ i, g: read.g, from: read.from, type: read.type });
    }
    let result: QueryResult;
    try {
      result = await this.#run(
        nodes.length > 0 && edges.length > 0
          ? STATEMENT.both
          : nodes.length > 0
            ? STATEMENT.nodes
            : STATEMENT.edges,
        { nodes, edges },
      );
    } catch (error) {
      const failure = toEngineError(error);
      for (const read of reads) read.reject(failure);
      return;
    }
    this.#stats.batches += 1;
    this.#stats.reads += reads.length;
    const record = result.records[0];
    const foundNodes = new Map<number, NodeRow>();
    for (const row of (record?.get('nodes') ?? []) as NodeRow[]) foundNodes.set(row[0], row);
    const foundEdges = new Map<number, EdgeRow[]>();
    for (const row of (record?.get('edges') ?? []) as EdgeRow[]) {
      const list = foundEdges.get(row[0]);
      if (list === undefined) foundEdges.set(row[0], [row]);
      else list.push(row);
    }
    for (const read of reads) {
      const i = index.get(read.key) as number;
      try {
        if (read.kind === 'node') {
          const row = foundNodes.get(i);
          read.resolve(
            row === undefined
              ? null
              : { id: row[1], labels: [...row[2]], props: JSON.parse(row[3]) as Props },
          );
        } else {
          read.resolve(
            (foundEdges.get(i) ?? []).map(([, type, to, json]) => ({
              from: read.from,
              type,
              to,
              props: JSON.parse(json ?? '{}') as Props,
            })),
          );
        }
      } catch (error) {
        read.reject(error);
      }
    }
  }

  async #run(query: string, params: Record<string, unknown>): Promise<QueryResult> {
    for (let attempt = 1; ; attempt += 1) {
      const session = this.openSession();
      try {
        return await runWithoutStack(session, query, params);
      } catch (error) {
        if (attempt >= ATTEMPTS || !isRetryableError(error as Error)) throw error;
      } finally {
        await session.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/**
 * `session.run` without the stack trace the driver captures for every result (`new
 * Error().stack`, kept to replace a failure's stack): a coalesced statement is sent from a
 * `setImmediate` callback, so that stack names no caller anyway, and building it cost about
 * 3 % of the serving process's CPU under an uncached read load (more with source maps on).
 * The driver builds its Result synchronously in `run`; the limit is restored right after.
 */
function runWithoutStack(
  session: Session,
  query: string,
  params: Record<string, unknown>,
): Promise<QueryResult> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return session.run(query, params) as unknown as Promise<QueryResult>;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
