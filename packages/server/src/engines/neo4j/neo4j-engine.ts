import { randomUUID } from 'node:crypto';
import neo4j, {
  type BookmarkManager,
  type Driver,
  type ManagedTransaction,
  type Session,
} from 'neo4j-driver';
import { EngineError, type GraphEngine, type ProbeResult, type ProcedureListing } from '../port';
import { assertGraphName } from '../shared/identifiers';
import { databaseName } from './database-name';
import { Neo4jGraph } from './neo4j-graph';
import { PointReads } from './point-reads';
import {
  applySchema,
  createVectorIndex,
  DATA_LABELS,
  DATA_SCHEMA,
  MAX_INDEXED_DIMENSION,
  migrateLayout,
  REGISTRY_SCHEMA,
  vectorIndex,
} from './schema';
import { toEngineError } from './to-engine-error';

export interface Neo4jEngineOptions {
  uri: string;
  user: string;
  password?: string;
  /** `community`: one database, graph name on every node; `enterprise`: one database per graph. */
  edition: 'community' | 'enterprise';
  /** The database holding the graph registry (and, on Community, every graph); default: the user's home database. */
  database?: string;
  /** The audit chains' HMAC key (`loadAuditKey` in engines/shared/audit-key); every server on the database needs the same. */
  auditKey: Uint8Array;
}

/** Whether the URI names a cluster the driver routes over (`neo4j://` and its TLS variants). */
export function isRoutingUri(uri: string): boolean {
  return /^neo4j(\+s|\+ssc)?:\/\//i.test(uri.trim());
}

/** Nodes deleted per transaction when a graph is dropped. */
const DROP_BATCH = 5_000;

/**
 * The Neo4j engine over Bolt. On Community edition every graph lives in one database, each
 * node carrying its graph's name in `g` (see schema.ts); on Enterprise each graph gets its own
 * database (`CREATE DATABASE`), with the same layout inside. The graph registry (`TGraph`
 * nodes) lives in the home database either way.
 */
export class Neo4jEngine implements GraphEngine {
  readonly name = 'neo4j';
  private driver: Driver | null = null;
  /**
   * Shared by every session the engine opens on a cluster (a routing URI: `neo4j://`,
   * `neo4j+s://`, `neo4j+ssc://`), so each transaction sees the ones committed before it
   * (read-your-writes where reads may go to another member). Null on a direct connection
   * (`bolt://`): one server sees its own commits at once, and the bookmark round of every
   * session (fetch before, update after) cost about 180 µs of this process's CPU per read here.
   */
  private bookmarks: BookmarkManager | null = null;
  /** Vector indexes created (`<database>/<dimension>`) and known to be online. */
  private readonly vectorIndexes = new Map<string, 'created' | 'online'>();
  /** Enterprise graph databases whose schema this process has applied. */
  private readonly schemaReady = new Set<string>();
  /** The coalesced point reads of each database (`''`: the home database). */
  private readonly pointReads = new Map<string, PointReads>();

  constructor(private readonly options: Neo4jEngineOptions) {}

  private newDriver(config: { connectionTimeout?: number } = {}): Driver {
    const { uri, user, password } = this.options;
    // A server with authentication disabled ignores the credentials.
    const auth = neo4j.auth.basic(user, password ?? '');
    return neo4j.driver(uri, auth, {
      disableLosslessIntegers: true,
      maxTransactionRetryTime: 30_000,
      userAgent: 'trellis',
      logging: { level: 'error', logger: () => {} },
      ...config,
    });
  }

  /** Opens a session on `database` (undefined: the home database) of the initialized driver. */
  private open(database: string | undefined, mode: 'READ' | 'WRITE'): Session {
    if (this.driver === null) throw new Error('The Neo4j engine is not initialized (call init() first)');
    return this.driver.session({
      database,
      defaultAccessMode: mode,
      ...(this.bookmarks === null ? {} : { bookmarkManager: this.bookmarks }),
    });
  }

  async init(): Promise<void> {
    if (this.driver !== null) return;
    const driver = this.newDriver();
    this.driver = driver;
    this.bookmarks = isRoutingUri(this.options.uri) ? neo4j.bookmarkManager() : null;
    const home = () => this.open(this.options.database, 'WRITE');
    try {
      await driver.verifyConnectivity({ database: this.options.database });
      await applySchema({ openSession: home, statements: REGISTRY_SCHEMA });
      if (this.options.edition === 'community') {
        await applySchema({ openSession: home, statements: DATA_SCHEMA });
        await migrateLayout({ openSession: home });
      }
    } catch (error) {
      this.driver = null;
      await driver.close();
      throw toEngineError(error);
    }
  }

  async close(): Promise<void> {
    const driver = this.driver;
    this.driver = null;
    await driver?.close();
  }

  endpoint(): string {
    try {
      const url = new URL(this.options.uri);
      url.username = '';
      url.password = '';
      return url.toString().replace(/\/$/, '');
    } catch {
      return this.options.uri.replace(/\/\/[^@/]*@/, '//');
    }
  }

  /** The database a graph's data lives in. */
  private databaseOf(graph: string): string | undefined {
    return this.options.edition === 'enterprise' ? databaseName(graph) : this.options.database;
  }

  /** The point reads of a database, shared by every graph in it (Community: every graph). */
  private pointReadsOf(database: string | undefined): PointReads {
    let reads = this.pointReads.get(database ?? '');
    if (reads === undefined) {
      reads = new PointReads(() => this.open(database, 'READ'));
      this.pointReads.set(database ?? '', reads);
    }
    return reads;
  }

  private graph(name: string): Neo4jGraph {
    const database = this.databaseOf(name);
    return new Neo4jGraph(name, {
      pointReads: this.pointReadsOf(database),
      openSession: (mode) => this.open(database, mode),
      vectors: { isOnline: (dimension) => this.isVectorIndexOnline(database, dimension) },
      ensureVectorIndexes: (dimensions) => this.ensureVectorIndexes(database, dimensions),
      auditKey: this.options.auditKey,
    });
  }

  private async registry<T>(
    mode: 'READ' | 'WRITE',
    query: string,
    params: Record<string, unknown>,
  ): Promise<T[]> {
    const session = this.open(this.options.database, mode);
    try {
      const run = (tx: ManagedTransaction) => tx.run(query, params);
      const result = mode === 'READ' ? await session.executeRead(run) : await session.executeWrite(run);
      return result.records.map((record) => record.toObject() as T);
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  async createGraph(name: string): Promise<Neo4jGraph> {
    assertGraphName(name);
    const existing = await this.registry('READ', 'MATCH (r:TGraph {name: $name}) RETURN r.name AS name', {
      name,
    });
    if (existing.length > 0) throw new EngineError('exists', `Graph ${name} already exists`, { graph: name });
    const database = this.databaseOf(name);
    if (this.options.edition === 'enterprise') {
      await this.system(`CREATE DATABASE $db IF NOT EXISTS WAIT`, { db: database });
      await applySchema({ openSession: () => this.open(database, 'WRITE'), statements: DATA_SCHEMA });
      await migrateLayout({ openSession: () => this.open(database, 'WRITE') });
      if (database !== undefined) this.schemaReady.add(database);
    }
    // The graph's lock node first, then the registry entry that makes the graph visible.
    const session = this.open(database, 'WRITE');
    try {
      await session.executeWrite((tx) => tx.run('MERGE (h:TGraphHead {g: $g})', { g: name }));
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
    const token = randomUUID();
    const [created] = await this.registry<{ isNew: boolean }>(
      'WRITE',
      `MERGE (r:TGraph {name: $name})
       ON CREATE SET r.createdAt = $now, r.db = $db, r.tx = $token
       RETURN r.tx = $token AS isNew`,
      { name, now: new Date().toISOString(), db: database ?? null, token },
    );
    if (!created?.isNew) throw new EngineError('exists', `Graph ${name} already exists`, { graph: name });
    return this.graph(name);
  }

  async openGraph(name: string): Promise<Neo4jGraph | null> {
    try {
      assertGraphName(name);
    } catch {
      return null;
    }
    const rows = await this.registry('READ', 'MATCH (r:TGraph {name: $name}) RETURN r.name AS name', {
      name,
    });
    if (rows.length === 0) return null;
    const database = this.databaseOf(name);
    if (database !== undefined && this.options.edition === 'enterprise' && !this.schemaReady.has(database)) {
      // A graph database created by an older version gets the indexes this one relies on.
      await applySchema({ openSession: () => this.open(database, 'WRITE'), statements: DATA_SCHEMA });
      await migrateLayout({ openSession: () => this.open(database, 'WRITE') });
      this.schemaReady.add(database);
    }
    return this.graph(name);
  }

  async dropGraph(name: string): Promise<boolean> {
    try {
      assertGraphName(name);
    } catch {
      return false;
    }
    const rows = await this.registry('READ', 'MATCH (r:TGraph {name: $name}) RETURN r.name AS name', {
      name,
    });
    if (rows.length === 0) return false;
    const database = this.databaseOf(name);
    if (this.options.edition === 'enterprise') {
      await this.system('DROP DATABASE $db IF EXISTS WAIT', { db: database });
    } else {
      // In batches, so a large graph does not need one huge transaction. The registry entry
      // goes last: if this is interrupted, the graph is still listed and dropping it again
      // finishes the job.
      const session = this.open(database, 'WRITE');
      try {
        for (const label of DATA_LABELS) {
          for (;;) {
            const deleted = await session.executeWrite(async (tx) => {
              const result = await tx.run(
                `MATCH (x:${label} {g: $g}) WITH x LIMIT $batch DETACH DELETE x RETURN count(*) AS c`,
                { g: name, batch: neo4j.int(DROP_BATCH) },
              );
              return Number(result.records[0]?.get('c') ?? 0);
            });
            if (deleted < DROP_BATCH) break;
          }
        }
      } catch (error) {
        throw toEngineError(error);
      } finally {
        await session.close();
      }
    }
    const removed = await this.registry<{ c: number }>(
      'WRITE',
      'MATCH (r:TGraph {name: $name}) DELETE r RETURN count(*) AS c',
      { name },
    );
    return Number(removed[0]?.c ?? 0) > 0;
  }

  async listGraphs(): Promise<string[]> {
    const rows = await this.registry<{ name: string }>(
      'READ',
      'MATCH (r:TGraph) RETURN r.name AS name ORDER BY name',
      {},
    );
    return rows.map((row) => row.name);
  }

  /** Runs an administration command against the `system` database. */
  private async system(query: string, params: Record<string, unknown>): Promise<void> {
    const session = this.open('system', 'WRITE');
    try {
      await session.run(query, params);
    } catch (error) {
      throw toEngineError(error);
    } finally {
      await session.close();
    }
  }

  async procedures(): Promise<ProcedureListing> {
    const probes = [
      {
        via: 'SHOW PROCEDURES',
        query: 'SHOW PROCEDURES YIELD name, description, mode RETURN name, description, mode',
      },
      { via: 'dbms.procedures()', query: 'CALL dbms.procedures() YIELD name, description, mode' },
    ];
    const attempts: ProcedureListing['attempts'] = [];
    // Like probe, this diagnostic answers before init (or after close) through a short-lived driver.
    const driver = this.driver ?? this.newDriver({ connectionTimeout: 5_000 });
    try {
      for (const probe of probes) {
        const session = driver.session({ database: this.options.database, defaultAccessMode: 'READ' });
        try {
          const result = await session.run(probe.query);
          attempts.push({ via: probe.via, ok: true });
          return {
            via: probe.via,
            attempts,
            procedures: result.records.map((record) => ({
              name: String(record.get('name')),
              ...(record.get('description') ? { description: String(record.get('description')) } : {}),
              ...(record.get('mode') ? { mode: String(record.get('mode')) } : {}),
            })),
          };
        } catch (error) {
          attempts.push({ via: probe.via, ok: false, error: (error as Error).message || String(error) });
        } finally {
          await session.close();
        }
      }
    } finally {
      if (driver !== this.driver) await driver.close();
    }
    throw new EngineError('unavailable', 'Neo4j answered none of the procedure listings', { attempts });
  }

  async probe(timeoutMs: number): Promise<ProbeResult> {
    const started = performance.now();
    // Before init (or after close) a short-lived driver answers, so a probe never needs the engine started.
    const driver = this.driver ?? this.newDriver({ connectionTimeout: timeoutMs });
    const session = driver.session({ database: this.options.database, defaultAccessMode: 'READ' });
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`No answer within ${timeoutMs} ms`)), timeoutMs);
      });
      await Promise.race([session.run('RETURN 1 AS ok', {}, { timeout: timeoutMs }), timeout]);
      return { reachable: true, probeMs: Math.round(performance.now() - started), error: null };
    } catch (error) {
      return { reachable: false, probeMs: null, error: (error as Error).message || String(error) };
    } finally {
      clearTimeout(timer);
      void session.close().catch(() => {});
      if (driver !== this.driver) void driver.close().catch(() => {});
    }
  }

  private async isVectorIndexOnline(database: string | undefined, dimension: number): Promise<boolean> {
    const key = `${database ?? ''}/${dimension}`;
    if (this.vectorIndexes.get(key) === 'online') return true;
    const session = this.open(database, 'READ');
    try {
      const result = await session.run(
        'SHOW VECTOR INDEXES YIELD name, state WHERE name = $name RETURN state',
        {
          name: vectorIndex(dimension).name,
        },
      );
      const isOnline = result.records[0]?.get('state') === 'ONLINE';
      if (isOnline) this.vectorIndexes.set(key, 'online');
      return isOnline;
    } finally {
      await session.close();
    }
  }

  private async ensureVectorIndexes(
    database: string | undefined,
    dimensions: Iterable<number>,
  ): Promise<void> {
    for (const dimension of dimensions) {
      const key = `${database ?? ''}/${dimension}`;
      if (dimension > MAX_INDEXED_DIMENSION || this.vectorIndexes.has(key)) continue;
      await createVectorIndex({ openSession: () => this.open(database, 'WRITE'), dimension });
      this.vectorIndexes.set(key, 'created');
    }
  }
}
