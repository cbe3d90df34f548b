import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, openSync, readSync } from 'node:fs';
import type {
  AuditFilter,
  AuditPage,
  AuditRecord,
  AuditVerdict,
  CallOptions,
  DetachedNodeRun,
  Graph,
  GraphWriter,
  NodeJsonWithEdges,
  NodeRun,
  VerifyAuditOptions,
} from '../port';
import { EngineError } from '../port';
import { verifyAuditChain } from '../shared/audit-chain';
import {
  BACKSTOP_CHECKPOINT_PAGES,
  BackgroundCheckpoint,
  WAL_INDEX_HEADER_BYTES,
  WAL_INDEX_READ_BYTES,
  walPending,
} from './background-checkpoint';
import { isBusy, SqlConnection, WRITE_LOCK_WAIT_MS, writeLockPause } from './connection';
import { DetachedWriter } from './detached-writer';
import { GraphStore, type UniqueConstraints } from './graph-store';
import { InterruptibleReads } from './interruptible-reads';
import { Mutex } from './mutex';
import { MIGRATIONS, SCHEMA_SQL, SCHEMA_VERSION } from './schema';

/**
 * The self-deadlock guard: the graph whose transaction the current async context runs in, so a
 * write on the graph (instead of the transaction's `tx`) throws at once instead of waiting
 * forever. On Node 20 an `AsyncLocalStorage` turns on promise hooks for the whole process the
 * first time it runs, which costs every request of the server about a fifth of its throughput
 * (measured on `GET /api/content/{type}/{id}`), so the guard runs where such bugs are found:
 * under tests (`NODE_ENV=test`, which vitest sets), in development, or with `TRELLIS_TX_GUARD=1`.
 */
const activeTransaction =
  process.env.TRELLIS_TX_GUARD === '1' ||
  process.env.NODE_ENV === 'test' ||
  process.env.NODE_ENV === 'development'
    ? new AsyncLocalStorage<EmbeddedGraph>()
    : null;

/**
 * WAL and synchronous=FULL: an acknowledged commit survives a power cut, not only a crash.
 * The WAL is copied back into the file (checkpointed) once it holds 10,000 pages (40 MiB)
 * rather than SQLite's 1,000: a page that many commits change (an index leaf, the full-text
 * segments) is written to the file once per checkpoint, so a bulk import writes and syncs the
 * file far less often. Durability is the same (each commit is synced to the WAL). The
 * checkpoint runs in the background ({@link BackgroundCheckpoint}), not in the commit that
 * takes the WAL past that size; the connections' own automatic checkpoint is a backstop.
 */
function configure(conn: SqlConnection): void {
  for (const pragma of WRITE_PRAGMAS) conn.exec(`PRAGMA ${pragma}`);
  tune(conn);
}

/** {@link configure}'s pragmas, as the graph's write connections set them (DetachedWriter too). */
const WRITE_PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = FULL',
  `wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`,
];
/** {@link tune}'s pragmas. */
const TUNE_PRAGMAS = ['cache_size = -65536', 'mmap_size = 268435456'];

/**
 * The reads of one id asked of {@link EmbeddedGraph.getNodeJsonWithEdges}, waiting for their
 * turn's batch: one promise, given to each caller of that id.
 */
interface PendingItemRead {
  id: string;
  promise: Promise<NodeJsonWithEdges | null>;
  resolve: (read: NodeJsonWithEdges | null) => void;
  reject: (error: unknown) => void;
}

/** Ends a read transaction (nothing to keep or lose): COMMIT, else ROLLBACK; never throws. */
function endReadTransaction(conn: SqlConnection): void {
  try {
    conn.run('COMMIT');
  } catch {
    try {
      if (conn.db.open && conn.db.inTransaction) conn.run('ROLLBACK');
    } catch {
      // The connection is closed or broken: its next statement reports it.
    }
  }
}

/** A larger page cache and memory-mapped reads: point reads skip the read() system call. */
function tune(conn: SqlConnection): void {
  for (const pragma of TUNE_PRAGMAS) conn.exec(`PRAGMA ${pragma}`);
}

function schemaVersion(conn: SqlConnection): unknown {
  try {
    return conn.row(`SELECT value FROM meta WHERE key = 'schema_version'`)?.[0];
  } catch {
    return undefined;
  }
}

/**
 * Brings a file of an older schema version up to date (see MIGRATIONS), then refuses a file
 * this code cannot read: not a graph, or an unknown (e.g. newer) schema version.
 */
function migrateAndAssertSchema(conn: SqlConnection, name: string): void {
  let version = schemaVersion(conn);
  let step = MIGRATIONS[String(version)];
  while (version !== SCHEMA_VERSION && step !== undefined) {
    conn.exec('BEGIN IMMEDIATE');
    try {
      // Re-read under the write lock: another process may have migrated the file meanwhile.
      if (schemaVersion(conn) === version) {
        conn.exec(step.sql);
        conn.run(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, [step.to]);
      }
      conn.exec('COMMIT');
    } catch (error) {
      if (conn.db.inTransaction) conn.exec('ROLLBACK');
      throw error;
    }
    version = schemaVersion(conn);
    step = MIGRATIONS[String(version)];
  }
  if (version !== SCHEMA_VERSION) {
    throw new EngineError(
      'unavailable',
      `Graph ${name}: the file is not a Trellis graph of schema version ${SCHEMA_VERSION} (found ${String(version)})`,
      { graph: name, hint: 'Restore the graph from a backup, or drop it and create it again.' },
    );
  }
}

/**
 * One graph in its own database file. Writes go through one write connection, serialized by a
 * mutex (a transaction holds it across its awaits). Reads outside a transaction use a second
 * connection, so they see only committed data, never an open transaction's writes.
 *
 * When another connection holds the file's write lock, a write waits for it off the event loop
 * (see {@link waitToBegin}), never in SQLite's busy handler: that handler sleeps in the calling thread,
 * so the whole process would stop while it waits, and with it every transaction the process
 * holds open on other graphs. Two server processes on one data directory, each holding one
 * graph's lock in an open transaction while waiting in the busy handler for the other's,
 * stopped each other for the whole busy timeout and both failed ("database is locked").
 */
export class EmbeddedGraph implements Graph {
  private readonly writeConn: SqlConnection;
  private readonly readConn: SqlConnection;
  private readonly writer: GraphStore;
  private readonly reader: GraphStore;
  private readonly mutex = new Mutex();
  /** `findNodes` with a deadline: off the main thread, interrupted at the deadline. */
  private readonly interruptible: InterruptibleReads;
  private closed = false;
  /** The item reads asked for since the last one was answered: see {@link getNodeJsonWithEdges}. */
  private pendingItemReads: Map<string, PendingItemRead> | null = null;
  /** The file's WAL index (`-shm`), opened read-only by {@link commitMarker} on first use. */
  private shmFd: number | null = null;
  private readonly walIndexHeader = Buffer.alloc(WAL_INDEX_READ_BYTES);
  /** The connection of {@link createNodeRunDetached}, opened on its first use. */
  private detached: Promise<DetachedWriter> | null = null;
  /** {@link detached} once opened. */
  private detachedOpen: DetachedWriter | null = null;
  /** Detached runs sent and not answered yet: they hold the write mutex together (see createNodeRunDetached). */
  private detachedHolds = 0;
  /** The graph's unique constraints (label -> props), shared by its connections' stores. */
  private readonly uniques: UniqueConstraints = new Map();
  /** Copies the WAL into the file off the write path, asked after each commit. */
  private readonly checkpoint: BackgroundCheckpoint;

  private constructor(
    readonly name: string,
    readonly file: string,
    create: boolean,
    private readonly auditKey: Uint8Array,
  ) {
    this.writeConn = new SqlConnection(file);
    try {
      configure(this.writeConn);
      if (create) {
        this.writeConn.exec(`BEGIN IMMEDIATE; ${SCHEMA_SQL}`);
        this.writeConn.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('graph_name', ?)`, [name]);
        this.writeConn.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, [
          SCHEMA_VERSION,
        ]);
        this.writeConn.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('created_at', ?)`, [
          new Date().toISOString(),
        ]);
        this.writeConn.exec('COMMIT');
      } else {
        migrateAndAssertSchema(this.writeConn, name);
      }
      this.readConn = new SqlConnection(file);
      this.readConn.exec('PRAGMA query_only = 1');
      tune(this.readConn);
      // From here on a held write lock is waited for by waitToBegin(), off the event loop.
      this.writeConn.exec('PRAGMA busy_timeout = 0');
    } catch (error) {
      this.writeConn.close();
      throw error;
    }
    this.writer = new GraphStore(this.writeConn, this.uniques, auditKey);
    this.reader = new GraphStore(this.readConn, this.uniques, auditKey);
    this.writer.loadUniqueConstraints();
    this.writer.syncWithOtherWriters();
    this.interruptible = new InterruptibleReads(file);
    this.checkpoint = new BackgroundCheckpoint(file, () => this.walPending());
  }

  /** Background checkpoints run so far, and the one running now (tests, benches). */
  get backgroundCheckpoints(): { runs: number; pending: () => number | null; idle: () => Promise<void> } {
    return {
      runs: this.checkpoint.runs,
      pending: () => this.walPending(),
      idle: () => this.checkpoint.idle(),
    };
  }

  /** Creates the database file and its schema; audit records are keyed with `auditKey`. */
  static create(name: string, file: string, auditKey: Uint8Array): EmbeddedGraph {
    return new EmbeddedGraph(name, file, true, auditKey);
  }

  /** Opens an existing graph file; audit records are keyed with `auditKey`. */
  static open(name: string, file: string, auditKey: Uint8Array): EmbeddedGraph {
    return new EmbeddedGraph(name, file, false, auditKey);
  }

  /**
   * The WAL index header of the file (the first of its two copies, as text), or null when it
   * cannot be read or its two copies differ (a commit is writing it, or a reader is rebuilding
   * it). SQLite's WAL mode makes a commit visible to readers by rewriting this header in the
   * shared `-shm` file, whoever commits (another connection, another process): the change
   * counter, the last frame and the salts of a restarted WAL are in it, so it differs after
   * every commit and only then. One `pread` of 100 bytes, no lock, no statement.
   */
  commitMarker(): string | null {
    return this.readWalIndex() ? this.walIndexHeader.toString('latin1', 0, WAL_INDEX_HEADER_BYTES) : null;
  }

  /** The WAL's frames not yet copied into the file (see BackgroundCheckpoint), or null when the WAL index cannot be read. */
  private walPending(): number | null {
    return this.readWalIndex() ? walPending(this.walIndexHeader) : null;
  }

  /**
   * Reads the start of the `-shm` file (both WAL index header copies and the checkpoint's
   * `nBackfill`) into {@link walIndexHeader}: false when it cannot be read or the two copies
   * differ (a commit is writing it, or a reader is rebuilding it). One `pread`, no lock.
   */
  private readWalIndex(): boolean {
    if (this.closed) return false;
    try {
      if (this.shmFd === null) this.shmFd = openSync(`${this.file}-shm`, 'r');
      const header = this.walIndexHeader;
      const size = WAL_INDEX_HEADER_BYTES;
      if (readSync(this.shmFd, header, 0, WAL_INDEX_READ_BYTES, 0) !== WAL_INDEX_READ_BYTES) return false;
      // isInit (byte 12) set, and both copies alike (SQLite writes the second, then the first).
      return header[12] === 1 && header.compare(header, size, 2 * size, 0, size) === 0;
    } catch {
      return false;
    }
  }

  // ---- reads: committed data only ----

  async getNode(id: string) {
    return this.reader.getNode(id);
  }
  async getNodes(ids: string[]) {
    return this.reader.getNodes(ids);
  }
  /**
   * Without a deadline: on the read connection, in this thread. With one: through
   * {@link InterruptibleReads} (off the main thread, interrupted at the deadline).
   */
  async findNodes(query: Parameters<Graph['findNodes']>[0], options?: CallOptions) {
    if (options?.deadline !== undefined) {
      this.assertOpen();
      return this.interruptible.findNodes(query, options.deadline);
    }
    return this.reader.findNodes(query);
  }
  async getEdges(query: Parameters<Graph['getEdges']>[0]) {
    return this.reader.getEdges(query);
  }
  async getNodeWithEdges(id: string) {
    return this.reader.getNodeWithEdges(id);
  }
  /**
   * The item read of an uncached GET. Every call made before the microtask queue reaches the
   * first one's answer is read in one go, in one read transaction of the read connection (see
   * {@link answerItemReads}): the requests that passed the access epoch's check together (one
   * turn of the event loop) ask for their items in consecutive microtasks, and each statement
   * outside a transaction takes and drops WAL's shared read lock on its own (two `fcntl`
   * system calls). Each read still starts after it was asked for, and sees what was committed
   * before that; nothing is cached. Calls of one batch for the same id share one statement and
   * one answer (the same object: one snapshot gives them the same row), so callers must not
   * change what they get.
   */
  getNodeJsonWithEdges(id: string): Promise<NodeJsonWithEdges | null> {
    let pending = this.pendingItemReads;
    if (pending === null) {
      pending = new Map();
      this.pendingItemReads = pending;
      queueMicrotask(this.answerItemReads);
    }
    // A read of an id already asked for in this batch gets that read's promise: one statement,
    // one answer (the same object), one promise for all of them.
    const known = pending.get(id);
    if (known !== undefined) return known.promise;
    let resolve!: PendingItemRead['resolve'];
    let reject!: PendingItemRead['reject'];
    const promise = new Promise<NodeJsonWithEdges | null>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    pending.set(id, { id, promise, resolve, reject });
    return promise;
  }

  /**
   * Answers the item reads asked for so far, synchronously: one id alone as a plain statement,
   * several inside `BEGIN`…`COMMIT` (one snapshot, taken now, after all of them were asked
   * for; a read transaction, so it never waits for a writer and holds no write lock). Each id
   * is one statement, its answer given to every caller of it (in one snapshot a second
   * statement would answer the same row: this is not a cache, nothing outlives the batch).
   * Each read's error goes to each of its callers.
   */
  private readonly answerItemReads = (): void => {
    const pending = this.pendingItemReads;
    this.pendingItemReads = null;
    if (pending === null || pending.size === 0) return;
    const conn = this.readConn;
    let opened = false;
    if (pending.size > 1 && !this.closed) {
      try {
        if (!conn.db.inTransaction) {
          conn.run('BEGIN');
          opened = true;
        }
      } catch {
        // Read one by one, as a lone read would be.
      }
    }
    try {
      for (const read of pending.values()) {
        let answer: NodeJsonWithEdges | null;
        try {
          answer = this.reader.getNodeJsonWithEdges(read.id);
        } catch (error) {
          read.reject(error);
          continue;
        }
        read.resolve(answer);
      }
    } finally {
      if (opened) endReadTransaction(conn);
    }
  };
  async traverse(query: Parameters<Graph['traverse']>[0]) {
    return this.reader.traverse(query);
  }
  async similar(query: Parameters<Graph['similar']>[0]) {
    return this.reader.similar(query);
  }
  async hasEmbedding(id: string) {
    return this.reader.hasEmbedding(id);
  }
  async getEmbeddings(ids: string[]) {
    return this.reader.getEmbeddings(ids);
  }
  async auditRecords(options?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]> {
    return this.reader.auditRecords(options);
  }
  async findAudit(filter: AuditFilter): Promise<AuditPage> {
    return this.reader.findAudit(filter);
  }
  async verifyAudit(options?: VerifyAuditOptions): Promise<AuditVerdict> {
    return verifyAuditChain(this.name, this.reader.allAuditRecords(), this.auditKey, options);
  }

  // ---- single writes: each its own transaction ----

  createNode(node: Parameters<Graph['createNode']>[0]) {
    return this.write(() => this.writer.createNode(node));
  }
  createNodes(nodes: Parameters<Graph['createNodes']>[0]) {
    return this.write(() => this.writer.createNodes(nodes));
  }
  createNodeRun(run: NodeRun) {
    return this.write(() => this.writer.createNodeRun(run));
  }
  putNode(node: Parameters<Graph['putNode']>[0]) {
    return this.write(() => this.writer.putNode(node));
  }
  updateNode(id: string, update: Parameters<Graph['updateNode']>[1]) {
    return this.write(() => this.writer.updateNode(id, update));
  }
  deleteNode(id: string) {
    return this.write(() => this.writer.deleteNode(id));
  }
  mergeEdge(edge: Parameters<Graph['mergeEdge']>[0]) {
    return this.write(() => this.writer.mergeEdge(edge));
  }
  mergeEdges(edges: Parameters<Graph['mergeEdges']>[0]) {
    return this.write(() => this.writer.mergeEdges(edges));
  }
  deleteEdge(edge: Parameters<Graph['deleteEdge']>[0]) {
    return this.write(() => this.writer.deleteEdge(edge));
  }
  setEmbedding(id: string, vector: number[]) {
    return this.write(() => this.writer.setEmbedding(id, vector));
  }
  deleteEmbedding(id: string) {
    return this.write(() => this.writer.deleteEmbedding(id));
  }
  appendAudit(entry: Parameters<Graph['appendAudit']>[0]) {
    return this.write(() => this.writer.appendAudit(entry));
  }
  async ensureUnique(label: string, prop: string): Promise<void> {
    await this.write(() => this.writer.ensureUnique(label, prop));
  }

  /**
   * A run of new nodes and an audit entry in one transaction of their own, on a second write
   * connection that lives in a worker thread ({@link DetachedWriter}: libsql's synchronous
   * driver there): the batch goes there as one message — BEGIN IMMEDIATE, the `absent` probe,
   * the run's statements, the audit row and COMMIT run there in one synchronous call — and its
   * outcome comes back as one message, while this thread runs on. The graph's write mutex is
   * held from before the batch is sent to after its answer, as for a transaction, so the graph's
   * writes stay serialized and the other write connection never meets this one's lock. A run
   * asked for while other detached runs hold the mutex, and no other write waits for it, rides
   * on their hold: it is sent at once and the thread writes it right after them (the mutex is
   * released when the last answers), so an import's next batch waits in the thread, not here.
   * What the other connections keep about the file follows as after another process's commit:
   * the write connection reloads the unique constraints when `data_version` moved, reads see
   * the commit, and {@link commitMarker} (the WAL index header) changes with it.
   */
  async createNodeRunDetached(batch: DetachedNodeRun): Promise<'written' | 'declined'> {
    this.assertNotInOwnTransaction();
    const open = this.detachedOpen;
    if (this.detachedHolds > 0 && open !== null && open.usable && !this.mutex.contended) {
      this.assertOpen();
      this.detachedHolds += 1;
      return this.sendDetached(open, batch);
    }
    // the mutex first, so writes asked for in order are written in order (the connection's
    // first opening, which starts the thread once per process, waits inside it)
    await this.mutex.lock();
    let writer: DetachedWriter | null;
    try {
      this.assertOpen();
      writer = this.detached === null ? null : await this.detached.catch(() => null);
      if (writer === null || !writer.usable) {
        this.detachedOpen = null;
        const opening = DetachedWriter.open(this.file, this.auditKey, [...WRITE_PRAGMAS, ...TUNE_PRAGMAS]);
        this.detached = opening;
        opening.catch(() => {
          if (this.detached === opening) this.detached = null;
        });
        writer = await opening;
      }
      this.detachedOpen = writer;
      // the constraints as this connection knows them (the thread's connection checks its own)
      this.writer.syncWithOtherWriters();
    } catch (error) {
      this.mutex.unlock();
      throw error;
    }
    this.detachedHolds += 1;
    return this.sendDetached(writer, batch);
  }

  /** Sends `batch` (synchronously: in the order of the calls) and releases the mutex after the last answer. */
  private async sendDetached(
    writer: DetachedWriter,
    batch: DetachedNodeRun,
  ): Promise<'written' | 'declined'> {
    try {
      const outcome = await writer.write(batch, this.uniques);
      if (outcome === 'written') this.checkpoint.check();
      return outcome;
    } finally {
      this.detachedHolds -= 1;
      if (this.detachedHolds === 0) this.mutex.unlock();
    }
  }

  async transaction<T>(fn: (tx: GraphWriter) => Promise<T>): Promise<T> {
    this.assertNotInOwnTransaction();
    await this.mutex.lock();
    try {
      this.assertOpen();
      const busy = this.tryBegin();
      if (busy !== null) await this.waitToBegin(busy);
      const tx = new TransactionWriter(this.writer);
      try {
        this.writer.syncWithOtherWriters();
        const result = await (activeTransaction ? activeTransaction.run(this, () => fn(tx)) : fn(tx));
        tx.end();
        this.writer.flush();
        this.writeConn.exec('COMMIT');
        this.checkpoint.check();
        return result;
      } catch (error) {
        tx.end();
        this.rollback();
        throw error;
      }
    } finally {
      this.mutex.unlock();
    }
  }

  /** Waits for the running transaction, stops interruptible reads, then closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.mutex.lock();
    try {
      this.closed = true;
      if (this.shmFd !== null) {
        closeSync(this.shmFd);
        this.shmFd = null;
      }
      await this.interruptible.close();
      await this.checkpoint.close();
      const detached = this.detached;
      this.detached = null;
      this.detachedOpen = null;
      if (detached !== null) await (await detached.catch(() => null))?.close();
      this.readConn.close();
      this.writeConn.close();
    } finally {
      this.mutex.unlock();
    }
  }

  /**
   * Runs one write in its own transaction; synchronously when no transaction is running and
   * no other connection holds the file's write lock.
   */
  private write<T>(op: () => T): Promise<T> {
    if (this.mutex.tryLock()) {
      let busy: unknown;
      try {
        this.assertOpen();
        busy = this.tryBegin();
      } catch (error) {
        this.mutex.unlock();
        return Promise.reject(error);
      }
      if (busy !== null) return this.writeHoldingMutex(op, busy);
      try {
        return Promise.resolve(this.runAtomically(op));
      } catch (error) {
        return Promise.reject(error);
      } finally {
        this.mutex.unlock();
      }
    }
    try {
      this.assertNotInOwnTransaction();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.mutex.lock().then(() => this.writeHoldingMutex(op));
  }

  /**
   * Runs one write in its own transaction once the write lock is free (`busy`: the caller found
   * it held a moment ago); releases the mutex the caller took.
   */
  private async writeHoldingMutex<T>(op: () => T, busy?: unknown): Promise<T> {
    try {
      this.assertOpen();
      const found = busy ?? this.tryBegin();
      if (found !== null) await this.waitToBegin(found);
      return this.runAtomically(op);
    } finally {
      this.mutex.unlock();
    }
  }

  /**
   * Starts a write transaction (BEGIN IMMEDIATE: the write lock is taken at once, so no statement
   * of the transaction can find it taken later) when the lock is free: returns null, or the
   * SQLITE_BUSY error when another connection holds it.
   */
  private tryBegin(): unknown {
    try {
      this.writeConn.exec('BEGIN IMMEDIATE');
      return null;
    } catch (error) {
      if (isBusy(error)) return error;
      throw error;
    }
  }

  /**
   * Starts a write transaction once another connection has given the write lock up (`busy`:
   * the SQLITE_BUSY error of the attempt that found it held). Waits between attempts on timers,
   * so the event loop runs on and the transactions this process holds open on other graphs can
   * finish; fails with SQLITE_BUSY after {@link WRITE_LOCK_WAIT_MS}.
   */
  private async waitToBegin(busy: unknown): Promise<void> {
    const giveUpAt = Date.now() + WRITE_LOCK_WAIT_MS;
    for (let attempt = 0; Date.now() < giveUpAt; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, writeLockPause(attempt)));
      busy = this.tryBegin();
      if (busy === null) return;
    }
    throw busy;
  }

  /** Runs `op` in the write transaction just begun, and commits it (or rolls it back when `op` throws). */
  private runAtomically<T>(op: () => T): T {
    try {
      this.writer.syncWithOtherWriters();
      const result = op();
      this.writer.flush();
      this.writeConn.exec('COMMIT');
      this.checkpoint.check();
      return result;
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  private rollback(): void {
    this.writer.discard();
    if (this.writeConn.db.inTransaction) this.writeConn.exec('ROLLBACK');
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`Graph ${this.name} is closed`);
  }

  private assertNotInOwnTransaction(): void {
    if (activeTransaction?.getStore() === this) {
      throw new Error(
        `Graph ${this.name}: a write on the graph inside its own transaction would wait forever; use the transaction's tx argument`,
      );
    }
  }
}

/** The `tx` a transaction callback gets: the write connection's store, valid until the callback returns. */
class TransactionWriter implements GraphWriter {
  private active = true;

  constructor(private readonly store: GraphStore) {}

  end(): void {
    this.active = false;
  }

  private run<T>(op: () => T): Promise<T> {
    if (!this.active) return Promise.reject(new Error('The transaction has ended; tx can no longer be used'));
    try {
      return Promise.resolve(op());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  getNode(id: string) {
    return this.run(() => this.store.getNode(id));
  }
  getNodes(ids: string[]) {
    return this.run(() => this.store.getNodes(ids));
  }
  findNodes(query: Parameters<GraphWriter['findNodes']>[0]) {
    return this.run(() => this.store.findNodes(query));
  }
  getEdges(query: Parameters<GraphWriter['getEdges']>[0]) {
    return this.run(() => this.store.getEdges(query));
  }
  getNodeWithEdges(id: string) {
    return this.run(() => this.store.getNodeWithEdges(id));
  }
  getNodeJsonWithEdges(id: string) {
    return this.run(() => this.store.getNodeJsonWithEdges(id));
  }
  traverse(query: Parameters<GraphWriter['traverse']>[0]) {
    return this.run(() => this.store.traverse(query));
  }
  similar(query: Parameters<GraphWriter['similar']>[0]) {
    return this.run(() => this.store.similar(query));
  }
  hasEmbedding(id: string) {
    return this.run(() => this.store.hasEmbedding(id));
  }
  getEmbeddings(ids: string[]) {
    return this.run(() => this.store.getEmbeddings(ids));
  }
  deleteEmbedding(id: string) {
    return this.run(() => this.store.deleteEmbedding(id));
  }
  createNode(node: Parameters<GraphWriter['createNode']>[0]) {
    return this.run(() => this.store.createNode(node));
  }
  createNodes(nodes: Parameters<GraphWriter['createNodes']>[0]) {
    return this.run(() => this.store.createNodes(nodes));
  }
  createNodeRun(run: NodeRun) {
    return this.run(() => this.store.createNodeRun(run));
  }
  putNode(node: Parameters<GraphWriter['putNode']>[0]) {
    return this.run(() => this.store.putNode(node));
  }
  updateNode(id: string, update: Parameters<GraphWriter['updateNode']>[1]) {
    return this.run(() => this.store.updateNode(id, update));
  }
  deleteNode(id: string) {
    return this.run(() => this.store.deleteNode(id));
  }
  mergeEdge(edge: Parameters<GraphWriter['mergeEdge']>[0]) {
    return this.run(() => this.store.mergeEdge(edge));
  }
  mergeEdges(edges: Parameters<GraphWriter['mergeEdges']>[0]) {
    return this.run(() => this.store.mergeEdges(edges));
  }
  deleteEdge(edge: Parameters<GraphWriter['deleteEdge']>[0]) {
    return this.run(() => this.store.deleteEdge(edge));
  }
  setEmbedding(id: string, vector: number[]) {
    return this.run(() => this.store.setEmbedding(id, vector));
  }
  appendAudit(entry: Parameters<GraphWriter['appendAudit']>[0]) {
    return this.run(() => this.store.appendAudit(entry));
  }
}
