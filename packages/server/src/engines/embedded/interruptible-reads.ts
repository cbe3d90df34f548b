import Database from 'libsql/promise';
import type { GraphNode, NodePage, NodeQuery, Props } from '../port';
import { EngineError } from '../port';
import { assertNodeQuery } from '../shared/node-query';
import type { SqlValue } from './connection';
import { compileNodeQuery } from './find-nodes-sql';

/** Connections kept for interruptible reads; more reads at once wait for one. */
const POOL_SIZE = 4;

/** A statement of the async driver (libsql/promise): it runs off the main thread until its first row. */
interface AsyncStatement {
  raw(toggle?: boolean): AsyncStatement;
  all(params: SqlValue[]): Promise<unknown[][]>;
}

/** One connection of the pool, with its prepared statements. */
interface PooledConnection {
  db: Database;
  statements: Map<string, Promise<AsyncStatement>>;
}

/** libsql's error code for a statement stopped by `interrupt()`. */
const INTERRUPTED = 'SQLITE_INTERRUPT';

/** A node of a page read as JSON: its labels and props are in it as JSON already (`json(...)`). */
function toNode(row: unknown[]): GraphNode {
  return { id: row[0] as string, labels: row[1] as string[], props: row[2] as Props };
}

/**
 * Reads of one graph file that can be stopped at a deadline. The synchronous driver the graph
 * uses otherwise runs a statement on the main thread from start to end: nothing can stop it
 * (SQLite's interrupt must come from another thread), and nothing else runs meanwhile. These
 * reads go through libsql's async driver on connections of their own: each statement runs on
 * the driver's threads until it yields its first row, and a timer on the main thread calls
 * `interrupt()` on its connection at the deadline (SQLite then stops it at its next step).
 * Every query here yields a single row, so all of its work happens before that first row: the
 * page of a `findNodes` is read as one JSON array (`json_group_array`) and parsed here.
 *
 * Connections are used by one read at a time (an interrupt stops every statement of its
 * connection), opened on first use, query-only, and see committed data only.
 */
export class InterruptibleReads {
  private readonly idle: PooledConnection[] = [];
  private readonly busy = new Set<PooledConnection>();
  private readonly waiters: Array<(connection: PooledConnection) => void> = [];
  private opened = 0;
  private isClosed = false;

  constructor(private readonly file: string) {}

  /** As `GraphStore.findNodes`, stopped with EngineError `timeout` at `deadline` (epoch ms). */
  async findNodes(query: NodeQuery, deadline: number): Promise<NodePage> {
    assertNodeQuery(query);
    const compiled = compileNodeQuery(query);
    return this.withConnection(deadline, async (run) => {
      if (query.limit === 0) {
        const [countRow] = await run(compiled.countSql, compiled.countParams);
        return { nodes: [], total: Number(countRow?.[0] ?? 0) };
      }
      // the total and the page in one statement: one trip to the driver's threads; labels and
      // props nested as JSON (not as strings), so the main thread parses the page once
      const [row] = await run(
        `SELECT (${compiled.countSql.slice('SELECT '.length)}), (SELECT json_group_array(json_array(id, json(labels), json(props))) FROM (${compiled.sql}))`,
        [...compiled.countParams, ...compiled.params],
      );
      const rows = JSON.parse(String(row?.[1] ?? '[]')) as unknown[][];
      return { nodes: rows.map(toNode), total: Number(row?.[0] ?? 0) };
    });
  }

  /**
   * The first row of a query that yields at most one (an aggregate: all its work happens before
   * that row), stopped with EngineError `timeout` at `deadline` (epoch ms).
   */
  async readRow(sql: string, params: SqlValue[], deadline: number): Promise<unknown[] | undefined> {
    return this.withConnection(deadline, async (run) => (await run(sql, params))[0]);
  }

  /** Interrupts the reads running, waits for them to stop, and closes every connection. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const connection of this.busy) connection.db.interrupt();
    while (this.busy.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const connection of this.idle.splice(0)) connection.db.close();
  }

  private async withConnection<T>(
    deadline: number,
    read: (run: (sql: string, params: SqlValue[]) => Promise<unknown[][]>) => Promise<T>,
  ): Promise<T> {
    // the time the call was given (what the error reports)
    const timeoutMs = Math.max(0, deadline - Date.now());
    const timedOut = () =>
      new EngineError('timeout', `The query ran past its deadline (${timeoutMs} ms) and was stopped`, {
        timeoutMs,
      });
    if (Date.now() >= deadline) throw timedOut();
    const connection = await this.checkOut();
    let isStopped = false;
    const timer = setTimeout(
      () => {
        isStopped = true;
        connection.db.interrupt();
      },
      Math.max(0, deadline - Date.now()),
    );
    try {
      return await read(async (sql, params) => {
        if (isStopped) throw timedOut();
        let statement = connection.statements.get(sql);
        if (statement === undefined) {
          statement = (connection.db.prepare(sql) as Promise<AsyncStatement>).then((prepared) =>
            prepared.raw(true),
          );
          connection.statements.set(sql, statement);
          statement.catch(() => connection.statements.delete(sql));
        }
        return (await statement).all(params);
      });
    } catch (error) {
      if (isStopped || (error as { code?: unknown }).code === INTERRUPTED) throw timedOut();
      throw error;
    } finally {
      clearTimeout(timer);
      this.checkIn(connection);
    }
  }

  private async checkOut(): Promise<PooledConnection> {
    if (this.isClosed) throw new EngineError('unavailable', 'The graph is closed');
    let connection = this.idle.pop();
    if (connection === undefined && this.opened < POOL_SIZE) {
      this.opened += 1;
      try {
        connection = await this.open();
      } catch (error) {
        this.opened -= 1;
        throw error;
      }
    }
    if (connection === undefined) {
      connection = await new Promise<PooledConnection>((resolve) => this.waiters.push(resolve));
    }
    this.busy.add(connection);
    return connection;
  }

  private checkIn(connection: PooledConnection): void {
    this.busy.delete(connection);
    const next = this.waiters.shift();
    if (next !== undefined) next(connection);
    else if (this.isClosed) connection.db.close();
    else this.idle.push(connection);
  }

  private async open(): Promise<PooledConnection> {
    const db = new Database(this.file, { timeout: 5000 });
    await db.exec('PRAGMA query_only = 1');
    await db.exec('PRAGMA cache_size = -16384');
    await db.exec('PRAGMA mmap_size = 268435456');
    return { db, statements: new Map() };
  }
}
