import type { Graph, GraphEngine } from '../../engines/port';

/** Graph methods that only read; every other method counts as a write. */
const READ_METHODS: ReadonlySet<PropertyKey> = new Set<PropertyKey>([
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

/** When {@link writeNotifyingGraph} calls: as a write starts, or once it ended (committed or failed). */
export type WritePhase = 'start' | 'end';

/**
 * The same graph, calling `onWrite` before and after every call that may write (each single
 * write, `transaction`, `ensureUnique`, and any method not known to be a read, so a method
 * added to the port later fails safe), whether it succeeds or fails. Reads pass through.
 * Caches of what the graph holds use it to drop their entries at the moment a write starts
 * and again once it is visible.
 */
export function writeNotifyingGraph(graph: Graph, onWrite: (phase: WritePhase) => void): Graph {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(graph, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = methods.get(key);
      if (method === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        method = READ_METHODS.has(key)
          ? fn.bind(target)
          : (...args: unknown[]) => {
              onWrite('start');
              let result: unknown;
              try {
                result = fn.apply(target, args);
              } catch (error) {
                onWrite('end');
                throw error;
              }
              if (result instanceof Promise) return result.finally(() => onWrite('end'));
              onWrite('end');
              return result;
            };
        methods.set(key, method);
      }
      return method;
    },
  });
}

/**
 * The same engine, whose graphs (from `openGraph` and `createGraph`) are
 * {@link writeNotifyingGraph}s calling `onWrite` with the graph's name; creating and dropping
 * a graph count as writes to it too. The wrapper of a graph is made once and reused, so code
 * that keys state by the graph object keeps working.
 */
export function writeNotifyingEngine(
  engine: GraphEngine,
  onWrite: (graphName: string, phase: WritePhase) => void,
): GraphEngine {
  const wrappers = new WeakMap<Graph, Graph>();
  const wrap = (graph: Graph): Graph => {
    let wrapper = wrappers.get(graph);
    if (wrapper === undefined) {
      const name = graph.name;
      wrapper = writeNotifyingGraph(graph, (phase) => onWrite(name, phase));
      wrappers.set(graph, wrapper);
    }
    return wrapper;
  };
  return {
    get name() {
      return engine.name;
    },
    init: () => engine.init(),
    close: () => engine.close(),
    endpoint: () => engine.endpoint(),
    async createGraph(name) {
      onWrite(name, 'start');
      try {
        return wrap(await engine.createGraph(name));
      } finally {
        onWrite(name, 'end');
      }
    },
    async openGraph(name) {
      const graph = await engine.openGraph(name);
      return graph === null ? null : wrap(graph);
    },
    async dropGraph(name) {
      onWrite(name, 'start');
      try {
        return await engine.dropGraph(name);
      } finally {
        onWrite(name, 'end');
      }
    },
    listGraphs: () => engine.listGraphs(),
    procedures: () => engine.procedures(),
    probe: (timeoutMs) => engine.probe(timeoutMs),
  };
}
