import Database from 'libsql/promise';
import type { DetachedNodeRun } from '../port';
import { EngineError } from '../port';
import { assertNodeId } from '../shared/identifiers';
import type { SqlValue } from './connection';
import {
  AUDIT_INSERT,
  AUDIT_LAST,
  auditRow,
  checkNodeRun,
  nodeRunAllStatements,
  type UniqueConstraints,
} from './graph-store';

/** A statement of the async driver (libsql/promise); `run` and `get` are synchronous there. */
interface AsyncStatement {
  readonly reader: boolean;
  raw(toggle?: boolean): AsyncStatement;
  all(params: SqlValue[]): Promise<unknown[][]>;
  get(params: SqlValue[]): unknown[] | undefined;
  run(params: SqlValue[]): unknown;
}

/** Whether `error` is a taken id or a held unique value (a UNIQUE or PRIMARY KEY constraint). */
function isConstraintConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** How long a write waits for the write lock another process holds (as the graph's other connection waits). */
const WRITE_LOCK_WAIT_MS = 5000;

const ANY_PRESENT = 'SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?)) LIMIT 1';

/**
 * The graph's second write connection, for {@link EmbeddedGraph.createNodeRunDetached}: opened
 * with libsql's async driver, whose `exec` and statements (run to their first row: an INSERT
 * runs whole) execute on the driver's threads, so a batch's inserts — the B-tree inserts, the
 * full-text tokenizing — and its COMMIT (WAL writes, fsync, a checkpoint now and then) leave
 * the main thread free meanwhile. Used only while the graph's write mutex is held, so it never
 * meets the other write connection's lock; it waits for another process's lock on the driver's
 * thread (see {@link DetachedWriter.begin}), not on the event loop's. Its unique constraints are its own copy,
 * reloaded when another connection committed since it last looked (SQLite's `data_version`).
 */
export class DetachedWriter {
  private readonly statements = new Map<string, AsyncStatement>();
  private readonly uniques: UniqueConstraints = new Map();
  private dataVersion: unknown = undefined;

  private constructor(
    private readonly db: Database,
    private readonly auditKey: Uint8Array,
  ) {}

  /** Opens the connection with the graph's write pragmas (`pragmas`, e.g. `synchronous = FULL`). */
  static async open(file: string, auditKey: Uint8Array, pragmas: readonly string[]): Promise<DetachedWriter> {
    const db = new Database(file, { timeout: WRITE_LOCK_WAIT_MS });
    try {
      for (const pragma of pragmas) await db.exec(`PRAGMA ${pragma}`);
      await db.exec(`PRAGMA busy_timeout = ${WRITE_LOCK_WAIT_MS}`);
      return new DetachedWriter(db, auditKey);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private async statement(sql: string): Promise<AsyncStatement> {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = (await this.db.prepare(sql)) as unknown as AsyncStatement;
      if (stmt.reader) stmt.raw(true);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs `sql` on the driver's threads (to its first row: the whole of an INSERT) and returns its rows. */
  private async all(sql: string, params: SqlValue[]): Promise<unknown[][]> {
    return (await this.statement(sql)).all(params);
  }

  /** Runs a short statement on this thread (no trip to the driver's threads and back). */
  private async run(sql: string, params: SqlValue[] = []): Promise<void> {
    (await this.statement(sql)).run(params);
  }

  /** The first row of a small read, on this thread. */
  private async get(sql: string, params: SqlValue[] = []): Promise<unknown[] | undefined> {
    return (await this.statement(sql)).get(params);
  }

  /** Reloads the unique constraints when another connection committed since the last look. */
  private async syncConstraints(): Promise<void> {
    const version = (await this.get('PRAGMA data_version'))?.[0];
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.uniques.clear();
    const rows = await this.all('SELECT label, prop FROM unique_constraints ORDER BY label, prop', []);
    // (rare: after another connection's commit)
    for (const [label, prop] of rows) {
      const list = this.uniques.get(label as string) ?? [];
      list.push(prop as string);
      this.uniques.set(label as string, list);
    }
  }

  /** See {@link EmbeddedGraph.createNodeRunDetached}; the caller holds the graph's write mutex. */
  async write(batch: DetachedNodeRun): Promise<'written' | 'declined'> {
    checkNodeRun(batch.run);
    if (!Array.isArray(batch.absent))
      throw new EngineError('invalid_argument', 'absent must be a list of ids');
    for (const id of batch.absent) assertNodeId(id);
    // The short statements (the reads, the audit row) run on this thread: each trip to the
    // driver's threads comes back through the event loop, which the caller keeps busy.
    await this.begin();
    try {
      await this.syncConstraints();
      if (
        batch.absent.length > 0 &&
        (await this.get(ANY_PRESENT, [JSON.stringify(batch.absent)])) !== undefined
      ) {
        await this.rollback();
        return 'declined';
      }
      const afterRid = Number((await this.get('SELECT max(rid) FROM nodes'))?.[0] ?? 0);
      for (const [sql, params] of nodeRunAllStatements(batch.run, afterRid, this.uniques)) {
        try {
          await this.all(sql, params);
        } catch (error) {
          if (!isConstraintConflict(error)) throw error;
          await this.rollback();
          return 'declined';
        }
      }
      const { params } = auditRow(this.auditKey, await this.get(AUDIT_LAST), batch.audit);
      await this.run(AUDIT_INSERT, params);
      await this.db.exec('COMMIT');
      return 'written';
    } catch (error) {
      await this.rollback();
      throw error;
    }
  }

  /**
   * BEGIN IMMEDIATE, on the driver's thread: when another process holds the file's write lock,
   * SQLite's busy handler waits there (it sleeps in the thread it runs in) for up to
   * {@link WRITE_LOCK_WAIT_MS}, then SQLITE_BUSY; the event loop runs on meanwhile. (Not a
   * prepared statement on this thread: one that met SQLITE_BUSY stays in progress, and the
   * transaction's COMMIT then fails.)
   */
  private async begin(): Promise<void> {
    await this.db.exec('BEGIN IMMEDIATE');
  }

  /** Ends the open transaction, if any, keeping nothing; never throws. */
  private async rollback(): Promise<void> {
    try {
      if ((this.db as unknown as { inTransaction: boolean }).inTransaction) await this.db.exec('ROLLBACK');
    } catch {
      // A broken connection: its next statement reports it.
    }
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}
