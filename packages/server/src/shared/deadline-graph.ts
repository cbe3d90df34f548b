import type { CallOptions, Graph, GraphWriter } from '../engines/port';
import { EngineError, isEngineError } from '../engines/port';

/** Graph (and transaction) methods that only read; any other method counts as a write. */
const READS: ReadonlySet<PropertyKey> = new Set<PropertyKey>([
  'getNode',
  'getNodes',
  'findNodes',
  'getEdges',
  'getNodeWithEdges',
  'getNodeJsonWithEdges',
  'traverse',
  'similar',
  'hasEmbedding',
  'getEmbeddings',
  'auditRecords',
  'findAudit',
  'verifyAudit',
]);

/**
 * Reads that may run long (scans, searches, traversals): they race the deadline, so the call
 * rejects at it even when the engine goes on. Point reads (by id) are checked before and after
 * only: a timer for each would cost every request (a list reads each item's edges).
 */
const LONG_READS: ReadonlySet<PropertyKey> = new Set<PropertyKey>([
  'findNodes',
  'traverse',
  'similar',
  'auditRecords',
  'findAudit',
  'verifyAudit',
]);

/**
 * The key under which a bounded graph gives the graph it wraps (see {@link unboundedGraph}):
 * asked of its proxy, so making one per request records nothing anywhere.
 */
const kUnbounded = Symbol('trellis.unboundedGraph');

/** The time budget of a bounded graph. */
export interface Deadline {
  /** epoch ms (`Date.now()`) past which no engine call starts and reads stop */
  at: number;
  /** the budget it was made from, for the 504's message */
  timeoutMs: number;
}

/** EngineError `timeout` (504 `query_timeout`) for a budget of `timeoutMs`. */
export function deadlineError(timeoutMs: number): EngineError {
  return new EngineError('timeout', `The queries ran past ${timeoutMs} ms and were stopped`, { timeoutMs });
}

/** Whether `error` is a query timeout (an engine's, or one of {@link boundedGraph}). */
export function isQueryTimeout(error: unknown): boolean {
  return (
    isEngineError(error, 'timeout') ||
    (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'query_timeout')
  );
}

/**
 * `graph` with every call bounded by one deadline (a request's query budget,
 * MAX_QUERY_TIMEOUT_MS). Past it, no call starts: it rejects with EngineError `timeout`,
 * which the API answers 504 `query_timeout`; calls inside a transaction too, so the
 * transaction rolls back. A read that comes back after the deadline rejects too, and one that
 * may run long (a scan, search or traversal) races the deadline: it rejects at it; `findNodes` and `transaction` hand the engine the deadline, so it stops the work
 * there where it can (the embedded engine interrupts a `findNodes`' statements, Neo4j ends the
 * transaction). A write that started in time is left to finish: its result stands.
 */
export function boundedGraph(graph: Graph, deadline: Deadline): Graph {
  return bound(graph, deadline, unboundedGraph(graph));
}

/**
 * The graph a {@link boundedGraph} wraps (or `graph` itself): for work that outlives the
 * request, such as an async build or a deployment run in the background, and as the key of
 * what is cached per graph (each request has a bounded graph of its own).
 */
export function unboundedGraph<G extends object>(graph: G): G {
  return ((graph as { [kUnbounded]?: G })[kUnbounded] as G | undefined) ?? graph;
}

/** Throws the timeout of `deadline` once it has passed. */
function check(deadline: Deadline): void {
  if (Date.now() >= deadline.at) throw deadlineError(deadline.timeoutMs);
}

/** An engine's own timeout reports the time it had left; the budget is what the caller set. */
function normalize(error: unknown, deadline: Deadline): unknown {
  return isEngineError(error, 'timeout') ? deadlineError(deadline.timeoutMs) : error;
}

/**
 * The proxy handler of a bounded graph or transaction. A class, so that making one per request
 * (every request that touches its site's graph) allocates one object, not a set of closures;
 * each method is wrapped on its first use.
 */
class BoundHandler<T extends object> implements ProxyHandler<T> {
  #methods: Map<PropertyKey, unknown> | null = null;

  constructor(
    private readonly deadline: Deadline,
    /** the unbounded graph (null for a transaction) */
    private readonly original: object | null,
  ) {}

  get(object: T, key: PropertyKey): unknown {
    if (key === kUnbounded) return this.original ?? undefined;
    const value: unknown = Reflect.get(object, key, object);
    if (typeof value !== 'function') return value;
    this.#methods ??= new Map();
    let method = this.#methods.get(key);
    if (method === undefined) {
      method = this.#wrap(object, key, value as (...args: unknown[]) => Promise<unknown>);
      this.#methods.set(key, method);
    }
    return method;
  }

  #wrap(object: T, key: PropertyKey, fn: (...args: unknown[]) => Promise<unknown>): unknown {
    const deadline = this.deadline;
    const options: CallOptions = { deadline: deadline.at };
    if (this.original !== null && key === 'transaction') {
      return async (work: (tx: GraphWriter) => Promise<unknown>) => {
        check(deadline);
        try {
          return await fn.call(object, (tx: GraphWriter) => work(bound(tx, deadline, null)), options);
        } catch (error) {
          throw normalize(error, deadline);
        }
      };
    }
    if (READS.has(key) && !LONG_READS.has(key)) {
      return async (...args: unknown[]) => {
        check(deadline);
        try {
          const result = await fn.apply(object, args);
          check(deadline);
          return result;
        } catch (error) {
          throw normalize(error, deadline);
        }
      };
    }
    if (LONG_READS.has(key)) {
      return async (...args: unknown[]) => {
        check(deadline);
        const call = key === 'findNodes' ? fn.call(object, args[0], options) : fn.apply(object, args);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(deadlineError(deadline.timeoutMs)),
            Math.max(0, deadline.at - Date.now()),
          );
        });
        try {
          const result = await Promise.race([call, late]);
          check(deadline);
          return result;
        } catch (error) {
          throw normalize(error, deadline);
        } finally {
          clearTimeout(timer);
          // the abandoned call's late failure must not be unhandled
          call.catch(() => undefined);
        }
      };
    }
    return (...args: unknown[]) => {
      try {
        check(deadline);
      } catch (error) {
        return Promise.reject(error);
      }
      return fn.apply(object, args);
    };
  }
}

/** `target` bounded by `deadline`; `original` is the unbounded graph (null for a transaction). */
function bound<T extends object>(target: T, deadline: Deadline, original: object | null): T {
  return new Proxy(target, new BoundHandler<T>(deadline, original));
}
