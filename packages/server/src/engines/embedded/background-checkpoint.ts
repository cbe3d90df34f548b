import Database from 'libsql/promise';

/**
 * When the WAL holds this many frames (pages) not yet copied into the database file, a
 * checkpoint starts in the background (see {@link BackgroundCheckpoint}). Tests lower it.
 */
export const checkpoints = { pages: 10_000 };

/**
 * The write connections' own automatic checkpoint (`wal_autocheckpoint`), in pages: a backstop
 * only, for when the background checkpoints fall behind (or cannot run); it bounds the WAL at
 * about 160 MiB. Below it no commit copies the WAL into the file itself.
 */
export const BACKSTOP_CHECKPOINT_PAGES = 40_000;

/** The WAL index header's size (SQLite's WalIndexHdr); the `-shm` file holds two copies, then WalCkptInfo. */
export const WAL_INDEX_HEADER_BYTES = 48;
/** Bytes of the `-shm` that {@link walPending} reads: both header copies and WalCkptInfo's `nBackfill`. */
export const WAL_INDEX_READ_BYTES = 2 * WAL_INDEX_HEADER_BYTES + 4;

/**
 * The WAL's frames not yet copied into the file, from the first {@link WAL_INDEX_READ_BYTES}
 * of a `-shm` file whose header copies were checked alike: the header's last frame (`mxFrame`,
 * at 16) less WalCkptInfo's `nBackfill` (just after the two copies). The `-shm` is in the
 * machine's byte order (little-endian on the machines Node runs on here).
 */
export function walPending(shm: Buffer): number {
  const last = shm.readUInt32LE(16);
  const backfilled = shm.readUInt32LE(2 * WAL_INDEX_HEADER_BYTES);
  return last >= backfilled ? last - backfilled : last;
}

/**
 * Copies a graph file's WAL back into the file (a PASSIVE checkpoint) off the write path. With
 * SQLite's automatic checkpoint, the commit that takes the WAL past its limit copies 40 MiB and
 * syncs the file before it returns: a write (an import's batch) that happens to be that one
 * waits for it. Here the write connections' own automatic checkpoint is only a backstop
 * ({@link BACKSTOP_CHECKPOINT_PAGES}); after each commit the graph calls {@link check}, which
 * asks the graph for the WAL's frames not yet copied (the WAL index in the `-shm` file: one
 * `pread`, no lock, {@link walPending}) and, when they reach {@link checkpoints}.pages, runs
 * `PRAGMA wal_checkpoint(PASSIVE)` on a connection opened for it (and closed after: checkpoints
 * are rare, and a server with many graphs keeps no descriptors for them) through libsql's
 * async driver: on the driver's threads, not the event loop's, and
 * beside the writes (a PASSIVE checkpoint copies the frames no reader still needs, waits for
 * no one, and takes no lock a writer needs). The next write after a complete checkpoint starts
 * the WAL again from its beginning, as after an automatic one. Durability is unchanged: every
 * commit is synced to the WAL as before, and the checkpoint syncs the WAL before it copies and
 * the file after (synchronous=FULL on its connection).
 */
export class BackgroundCheckpoint {
  private running: Promise<void> | null = null;
  private closed = false;
  /** Checkpoints run so far (tests, benches). */
  runs = 0;

  /** `pending`: the WAL's frames not yet copied into `file`, or null when unknown. */
  constructor(
    private readonly file: string,
    private readonly pending: () => number | null,
  ) {}

  /** After a commit: starts a checkpoint when the WAL holds {@link checkpoints}.pages frames not copied yet and none runs. */
  check(): void {
    if (this.closed || this.running !== null) return;
    const pending = this.pending();
    if (pending === null || pending < checkpoints.pages) return;
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  /** The checkpoint running now, if any (resolves when it ends; never rejects). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    let db: Database | null = null;
    try {
      db = new Database(this.file, { timeout: 0 });
      // the checkpoint's syncs: the WAL before copying, the file after
      await db.exec('PRAGMA synchronous = FULL');
      await db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      this.runs += 1;
    } catch {
      // another process's checkpoint runs, or the file is going: the next commit asks again,
      // and the writers' own automatic checkpoint is the backstop
    } finally {
      db?.close();
    }
  }

  /** Asks for no more checkpoints and waits for a running one. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }
}
