import { TrellisError } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Role, SiteContext } from '../../auth/types';
import type { Graph, NodeJsonWithEdges } from '../../engines/port';
import { isEngineError } from '../../engines/port';
import { boundedGraph, type Deadline, deadlineError } from '../../shared/deadline-graph';

/**
 * Resolves like `promise`, or rejects with 504 `query_timeout` once `ms` have passed. The
 * engine call itself is not interrupted (its result is dropped), so use it around reads and
 * around writes that are safe to finish late.
 */
export async function withQueryTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(TrellisError.of('query_timeout', { timeoutMs: ms })), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
    // A late rejection of the abandoned query must not become an unhandled rejection.
    promise.catch(() => undefined);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Bounds a query by `MAX_QUERY_TIMEOUT_MS` (504 `query_timeout` past it). Routes wrap
     * potentially long engine work: `await app.withQueryTimeout(graph.findNodes(q))`.
     */
    withQueryTimeout<T>(promise: Promise<T>): Promise<T>;
  }
}

/** A request's site context: the site's graph bounded by the request's deadline, made on first use. */
class BoundedSite implements SiteContext {
  readonly id: string;
  readonly graphName: string;
  readonly role: Role;
  #graph: Graph | null = null;

  constructor(
    private readonly site: SiteContext,
    private readonly deadline: Deadline,
  ) {
    this.id = site.id;
    this.graphName = site.graphName;
    this.role = site.role;
  }

  get graph(): Graph {
    this.#graph ??= boundedGraph(this.site.graph, this.deadline);
    return this.#graph;
  }

  /** The site's graph itself (what `unboundedGraph(this.graph)` gives), without making the bounded one. */
  get unbounded(): Graph {
    return this.site.graph;
  }

  /**
   * `this.graph.getNodeJsonWithEdges(id)` without making the bounded graph: the same checks
   * as its point reads (shared/deadline-graph.ts): none starts past the deadline, one that
   * answers past it rejects, and an engine's own timeout is reported against this budget.
   */
  getNodeJsonWithEdges(id: string): Promise<NodeJsonWithEdges | null> {
    const deadline = this.deadline;
    let read: Promise<NodeJsonWithEdges | null>;
    try {
      if (Date.now() >= deadline.at) throw deadlineError(deadline.timeoutMs);
      read = this.site.graph.getNodeJsonWithEdges(id);
    } catch (error) {
      return Promise.reject(timeoutOf(error, deadline));
    }
    return read.then(
      (answer) => {
        if (Date.now() >= deadline.at) throw deadlineError(deadline.timeoutMs);
        return answer;
      },
      (error: unknown) => {
        throw timeoutOf(error, deadline);
      },
    );
  }
}

/** An engine's own timeout reports the time it had left; the budget is what the request had. */
function timeoutOf(error: unknown, deadline: Deadline): unknown {
  return isEngineError(error, 'timeout') ? deadlineError(deadline.timeoutMs) : error;
}

/** The graph of a request's site context (unbounded), without making its bounded graph. */
export function siteGraphOf(site: SiteContext): Graph {
  return site instanceof BoundedSite ? site.unbounded : site.graph;
}

/**
 * The item read of GET /api/content/{type}/{id} on the request's site, bounded by the
 * request's query budget as `site.graph.getNodeJsonWithEdges(id)` is, but without the
 * per-request bounded graph (a proxy, its handler and the wrapped method's own promise).
 */
export function readSiteNodeJson(site: SiteContext, id: string): Promise<NodeJsonWithEdges | null> {
  return site instanceof BoundedSite ? site.getNodeJsonWithEdges(id) : site.graph.getNodeJsonWithEdges(id);
}

/**
 * `MAX_QUERY_TIMEOUT_MS` on every request that works on a site graph: once the handler starts
 * (after authentication and the body's parsing and validation), the request's engine work has
 * that long. The site graph the route gets (`siteOf(request).graph`) is bounded by the
 * deadline (shared/deadline-graph.ts): past it no query starts and running reads stop, and
 * the answer is 504 `query_timeout` (a transaction cut short rolls back). Also decorates the
 * app with {@link withQueryTimeout} for routes that bound engine work of their own (the
 * platform graph, engine-wide calls). Work a request starts in the background (async builds,
 * deployments) takes the unbounded graph (`unboundedGraph`).
 */
export const queryTimeoutPlugin = fp(
  async (app: FastifyInstance, opts: { timeoutMs: number }) => {
    const { timeoutMs } = opts;
    app.decorate('withQueryTimeout', <T>(promise: Promise<T>) => withQueryTimeout(promise, timeoutMs));
    // A callback hook: it runs on every request.
    app.addHook('preHandler', (request, _reply, done) => {
      const site = request.site;
      // A copy (the site context may be shared through the access cache) whose graph is bounded
      // on first use: a request answered without the engine (a read cache hit) makes no wrapper.
      if (site) request.site = new BoundedSite(site, { at: Date.now() + timeoutMs, timeoutMs });
      done();
    });
  },
  { name: 'trellis-query-timeout', dependencies: ['trellis-auth'] },
);
