import type { AuditEntryInput, NodeRun } from '../port';
import { isBusy, SqlConnection } from './connection';
import {
  AUDIT_INSERT,
  AUDIT_LAST,
  auditRow,
  nodeRunAllStatements,
  readUniqueConstraints,
  type UniqueConstraints,
} from './graph-store';

/** Whether `error` is a taken id or a held unique value (a UNIQUE or PRIMARY KEY constraint). */
function isConstraintConflict(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Thrown by {@link DetachedRunWriter.write} when another connection (another process) holds the
 * graph's write lock: nothing was done, and the same batch may be tried again later. `cause`
 * is SQLite's SQLITE_BUSY error.
 */
export class WriteLockHeld extends Error {
  constructor(readonly cause: unknown) {
    super("The graph file's write lock is held by another connection");
    this.name = 'WriteLockHeld';
  }
}

const ANY_PRESENT = 'SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?)) LIMIT 1';

/**
 * One batch for {@link DetachedRunWriter.write}: a checked NodeRun whose `uniqueProps` hold
 * (at least) the props named in `uniqueNames`, the ids that must not exist, and the audit entry.
 */
export interface DetachedRunBatch {
  run: NodeRun;
  /** See DetachedNodeRun.chain. */
  chain?: { id: string; seq: number };
  /** The props kept in `run.uniqueProps` (the caller's view of the constraints on the run's labels). */
  uniqueNames: string[];
  absent: string[];
  audit: AuditEntryInput;
}

/**
 * The synchronous half of EmbeddedGraph's `createNodeRunDetached`, run in the detached writer's
 * thread (detached-writer-worker.ts): a write connection of its own to the graph's file (the
 * graph's write pragmas, no busy timeout: a write lock another process holds is not waited for
 * here but reported as {@link WriteLockHeld}, and the thread tries the batch again on a timer
 * while it writes other graphs' batches), which writes one batch — BEGIN IMMEDIATE, the `absent` probe, `max(rid)`, the run's
 * statements (graph-store.ts `nodeRunAllStatements`, as createNodeRun's), the audit row
 * (`auditRow`, as appendAudit's) and COMMIT — in one synchronous call. Its unique constraints
 * are its own copy, reloaded when another connection committed since it last looked (SQLite's
 * `data_version`). Used only while the graph's write mutex is held on the graph's thread, so it
 * never meets the graph's own write connection's lock.
 */
export class DetachedRunWriter {
  private readonly conn: SqlConnection;
  private readonly uniques: UniqueConstraints = new Map();
  private dataVersion: unknown = undefined;
  /** The last `seq` written of each chain (DetachedNodeRun.chain), the most recent chains only. */
  private readonly chains = new Map<string, number>();

  constructor(
    file: string,
    private readonly auditKey: Uint8Array,
    pragmas: readonly string[],
  ) {
    this.conn = new SqlConnection(file);
    try {
      for (const pragma of pragmas) this.conn.exec(`PRAGMA ${pragma}`);
      // a held write lock fails BEGIN at once (WriteLockHeld); the thread waits on its timers
      this.conn.exec('PRAGMA busy_timeout = 0');
    } catch (error) {
      this.conn.close();
      throw error;
    }
  }

  /** Reloads the unique constraints when another connection committed since the last look. */
  private syncConstraints(): void {
    const version = this.conn.row('PRAGMA data_version')?.[0];
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    readUniqueConstraints(this.conn, this.uniques);
  }

  /**
   * Writes the batch in one transaction: `written` once committed; `declined` (nothing
   * written) when a node of `absent` exists, an id is taken, a unique value is held, or a
   * constraint on the run's labels names a prop outside `uniqueNames` (the caller did not send
   * its values: it writes the batch the ordinary way, which sees the constraint). Other
   * failures throw, nothing written; {@link WriteLockHeld} when another connection holds the
   * file's write lock (nothing done: the batch may be tried again).
   */
  write(batch: DetachedRunBatch, timing?: { commitMs: number }): 'written' | 'declined' {
    const chain = batch.chain;
    // a chained run is written only after its predecessor was
    if (chain !== undefined && chain.seq > 0 && this.chains.get(chain.id) !== chain.seq - 1)
      return 'declined';
    const outcome = this.writeRun(batch, timing);
    if (chain !== undefined && outcome === 'written') {
      this.chains.delete(chain.id);
      this.chains.set(chain.id, chain.seq);
      // a chain lives as long as one import: the oldest are forgotten
      if (this.chains.size > 256) this.chains.delete(this.chains.keys().next().value as string);
    }
    return outcome;
  }

  private writeRun(batch: DetachedRunBatch, timing?: { commitMs: number }): 'written' | 'declined' {
    // BEGIN IMMEDIATE: when another process holds the file's write lock it fails at once (no
    // busy timeout) and nothing was done. (exec, not a prepared statement: one that met
    // SQLITE_BUSY stays in progress and fails the COMMIT.)
    try {
      this.conn.exec('BEGIN IMMEDIATE');
    } catch (error) {
      if (isBusy(error)) throw new WriteLockHeld(error);
      throw error;
    }
    try {
      this.syncConstraints();
      const sent = new Set(batch.uniqueNames);
      for (const label of batch.run.labels) {
        for (const prop of this.uniques.get(label) ?? []) if (!sent.has(prop)) return this.decline();
      }
      if (batch.absent.length > 0 && this.conn.row(ANY_PRESENT, [JSON.stringify(batch.absent)]) !== undefined)
        return this.decline();
      const afterRid = Number(this.conn.row('SELECT max(rid) FROM nodes')?.[0] ?? 0);
      for (const [sql, params] of nodeRunAllStatements(batch.run, afterRid, this.uniques)) {
        try {
          this.conn.run(sql, params);
        } catch (error) {
          if (!isConstraintConflict(error)) throw error;
          return this.decline();
        }
      }
      const { params } = auditRow(this.auditKey, this.conn.row(AUDIT_LAST), batch.audit);
      this.conn.run(AUDIT_INSERT, params);
      const committing = timing === undefined ? 0 : performance.now();
      this.conn.exec('COMMIT');
      if (timing !== undefined) timing.commitMs += performance.now() - committing;
      return 'written';
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  private decline(): 'declined' {
    this.rollback();
    return 'declined';
  }

  /** Ends the open transaction, if any, keeping nothing; never throws. */
  private rollback(): void {
    try {
      if (this.conn.db.inTransaction) this.conn.exec('ROLLBACK');
    } catch {
      // A broken connection: its next statement reports it.
    }
  }

  close(): void {
    this.rollback();
    this.conn.close();
  }
}
