import Database from 'libsql';

/** A value the libsql driver binds safely. (Binding a boolean aborts the process in libsql 0.5.) */
export type SqlValue = string | number | bigint | null | Buffer;

/**
 * How long a write waits for the write lock of a graph file that another connection holds
 * (another server process on the same data directory, or another engine on the same files)
 * before it fails with SQLite's "database is locked" (SQLITE_BUSY).
 */
export const WRITE_LOCK_WAIT_MS = 5000;

/** Pauses between attempts to take a held write lock: SQLite's own busy handler's schedule. */
export const WRITE_LOCK_BACKOFF_MS: readonly number[] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** The pause before attempt `attempt` (from 0) to take a held write lock ({@link WRITE_LOCK_BACKOFF_MS}). */
export function writeLockPause(attempt: number): number {
  return WRITE_LOCK_BACKOFF_MS[Math.min(attempt, WRITE_LOCK_BACKOFF_MS.length - 1)] as number;
}

/** Whether `error` is SQLite's "database is locked" (SQLITE_BUSY or one of its extended codes). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

// One argument, the parameter array (see the note above `row`).
type Statement = Database.Statement<[SqlValue[]]>;

/**
 * One libsql connection with a prepared-statement cache. Rows are read in raw mode (arrays),
 * which keeps libsql 0.5's enumerable `_metadata` key (added by `get()` to object rows) out of
 * everything the engine returns.
 */
export class SqlConnection {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();

  constructor(path: string, options: { readonly?: boolean } = {}) {
    this.db = new Database(path, { timeout: 5000, ...options });
  }

  /**
   * Throws on a value libsql 0.5 cannot bind: it aborts the whole process on a boolean or
   * undefined instead of throwing, so this check stands between bad input and a crash.
   */
  private check(params: SqlValue[]): SqlValue[] {
    for (const value of params) {
      const type = typeof value;
      if (
        type !== 'string' &&
        type !== 'number' &&
        value !== null &&
        type !== 'bigint' &&
        !Buffer.isBuffer(value)
      ) {
        throw new TypeError(`Cannot bind a ${type} as an SQL parameter`);
      }
    }
    return params;
  }

  private prepare(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql) as Statement;
      if (stmt.reader) stmt.raw(true);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  // Parameters go to libsql as one array: spread, it copies them twice (rest + flat()) and
  // would take a lone Buffer parameter for the whole parameter object.

  /** The first row as an array of column values, or undefined. */
  row(sql: string, params: SqlValue[] = []): unknown[] | undefined {
    return this.prepare(sql).get(this.check(params)) as unknown[] | undefined;
  }

  /** All rows, each an array of column values. */
  rows(sql: string, params: SqlValue[] = []): unknown[][] {
    return this.prepare(sql).all(this.check(params)) as unknown[][];
  }

  /** Iterates the rows without loading them all. */
  iterate(sql: string, params: SqlValue[] = []): IterableIterator<unknown[]> {
    return this.prepare(sql).iterate(this.check(params)) as IterableIterator<unknown[]>;
  }

  /** Runs a statement that returns no rows. */
  run(sql: string, params: SqlValue[] = []): { changes: number; lastInsertRowid: number | bigint } {
    return this.prepare(sql).run(this.check(params));
  }

  /** Runs one or more statements without parameters (DDL, pragmas, BEGIN/COMMIT). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}
