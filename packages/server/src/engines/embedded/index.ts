import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Graph, GraphEngine, ProbeResult, ProcedureListing } from '../port';
import { EngineError } from '../port';
import { loadAuditKey } from '../shared/audit-key';
import { assertGraphName, isGraphName } from '../shared/identifiers';
import { SqlConnection } from './connection';
import { EmbeddedGraph } from './embedded-graph';

export interface EmbeddedEngineOptions {
  /** CMS_DATA_DIR; graphs live in `<dataDir>/graphs/<name>.db`. */
  dataDir: string;
  /** The audit chains' HMAC key; default: `<dataDir>/audit.key`, created on first init (engines/shared/audit-key). */
  auditKey?: Uint8Array;
}

const DB_SUFFIX = '.db';

/**
 * The embedded libSQL engine: one database file per graph under `<dataDir>/graphs/`, WAL with
 * synchronous=FULL, FTS5 (bm25) for `q`, libSQL vectors (`vector32`, `vector_distance_cos`)
 * for similarity. Nothing touches the disk before `init()`.
 */
export function createEmbeddedEngine(options: EmbeddedEngineOptions): GraphEngine {
  const graphsDir = resolve(options.dataDir, 'graphs');
  const open = new Map<string, EmbeddedGraph>();
  let isReady = false;
  let probeConn: SqlConnection | null = null;
  let auditKey: Uint8Array | null = options.auditKey ?? null;

  const fileOf = (name: string) => join(graphsDir, `${name}${DB_SUFFIX}`);

  function assertReady(): void {
    if (!isReady)
      throw new EngineError('unavailable', 'The embedded engine is not initialized (call init())');
  }

  function introspect(): SqlConnection {
    probeConn ??= new SqlConnection(':memory:');
    return probeConn;
  }

  const engine: GraphEngine = {
    name: 'embedded',

    async init() {
      mkdirSync(graphsDir, { recursive: true });
      auditKey ??= loadAuditKey({ dataDir: options.dataDir });
      isReady = true;
    },

    async close() {
      isReady = false;
      const graphs = [...open.values()];
      open.clear();
      await Promise.all(graphs.map((graph) => graph.close()));
      probeConn?.close();
      probeConn = null;
    },

    endpoint() {
      return graphsDir;
    },

    async createGraph(name) {
      assertReady();
      assertGraphName(name);
      const file = fileOf(name);
      if (open.has(name) || existsSync(file)) {
        throw new EngineError('exists', `Graph ${name} already exists`, { graph: name });
      }
      const graph = EmbeddedGraph.create(name, file, auditKey as Uint8Array);
      open.set(name, graph);
      return graph;
    },

    async openGraph(name): Promise<Graph | null> {
      assertReady();
      if (!isGraphName(name)) return null;
      const cached = open.get(name);
      if (cached !== undefined) return cached;
      const file = fileOf(name);
      if (!existsSync(file)) return null;
      const graph = EmbeddedGraph.open(name, file, auditKey as Uint8Array);
      open.set(name, graph);
      return graph;
    },

    async dropGraph(name) {
      assertReady();
      if (!isGraphName(name)) return false;
      const file = fileOf(name);
      const graph = open.get(name);
      open.delete(name);
      if (graph !== undefined) await graph.close();
      if (!existsSync(file)) return false;
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      return true;
    },

    async listGraphs() {
      assertReady();
      return readdirSync(graphsDir)
        .filter((file) => file.endsWith(DB_SUFFIX))
        .map((file) => file.slice(0, -DB_SUFFIX.length))
        .sort();
    },

    async procedures(): Promise<ProcedureListing> {
      const attempts: ProcedureListing['attempts'] = [];
      const procedures: ProcedureListing['procedures'] = [];
      const probes = [
        {
          via: 'pragma_function_list',
          sql: 'SELECT DISTINCT name FROM pragma_function_list ORDER BY name',
          mode: 'function',
        },
        {
          via: 'pragma_module_list',
          sql: 'SELECT name FROM pragma_module_list ORDER BY name',
          mode: 'module',
        },
      ];
      for (const probe of probes) {
        try {
          for (const [name] of introspect().rows(probe.sql))
            procedures.push({ name: String(name), mode: probe.mode });
          attempts.push({ via: probe.via, ok: true });
        } catch (error) {
          attempts.push({ via: probe.via, ok: false, error: (error as Error).message });
        }
      }
      const worked = attempts.filter((attempt) => attempt.ok).map((attempt) => attempt.via);
      if (worked.length === 0) {
        throw new EngineError('unavailable', 'No introspection query worked', { attempts });
      }
      return { via: worked.join('+'), procedures, attempts };
    },

    async probe(timeoutMs): Promise<ProbeResult> {
      const started = performance.now();
      try {
        if (!isReady) return { reachable: false, probeMs: null, error: 'The engine is not initialized' };
        // The data directory must be readable and SQLite must answer; both calls are synchronous.
        readdirSync(graphsDir);
        introspect().row('SELECT 1');
        const probeMs = Math.round(performance.now() - started);
        if (probeMs > timeoutMs) {
          return {
            reachable: false,
            probeMs,
            error: `The probe took ${probeMs} ms (timeout ${timeoutMs} ms)`,
          };
        }
        return { reachable: true, probeMs, error: null };
      } catch (error) {
        return { reachable: false, probeMs: null, error: (error as Error).message };
      }
    },
  };
  return engine;
}
