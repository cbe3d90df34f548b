import { randomUUID } from 'node:crypto';
import type { GraphReader, GraphWriter } from '../engines/port';

/**
 * The cross-instance invalidation signal of the access caches (docs/scaling.md § Several API
 * servers): one node of the platform graph whose `stamp` every change that can take access
 * away rewrites, in the same transaction as the change — a revoked API key, a membership set
 * or removed, a site updated, deleted or purged. Every server reads it (one point read by id)
 * before an authenticated request uses its caches, and drops them when it moved.
 */
export const ACCESS_EPOCH_ID = 'platform:access-epoch';
export const ACCESS_EPOCH_LABEL = 'AccessEpoch';

/** Moves the access epoch: call inside the transaction of the change. A fresh random stamp, so two changes can never write the same value. */
export async function bumpAccessEpoch(tx: GraphWriter): Promise<void> {
  await tx.putNode({ id: ACCESS_EPOCH_ID, labels: [ACCESS_EPOCH_LABEL], props: { stamp: randomUUID() } });
}

/** The access epoch's stamp now (null before the first change). */
export async function readAccessEpoch(graph: GraphReader): Promise<string | null> {
  const node = await graph.getNode(ACCESS_EPOCH_ID);
  return typeof node?.props.stamp === 'string' ? node.props.stamp : null;
}

/** Counters of the epoch checks, for /health/detail-style diagnostics and the tests. */
export interface AccessEpochStats {
  /** Requests that waited for a check. */
  checks: number;
  /** Point reads made (requests arriving while one is in flight share the next). */
  reads: number;
  /** Reads not made: the platform graph's commit marker showed nothing committed since the last read. */
  unchanged: number;
  /** Times the epoch had moved and the caches were dropped. */
  changes: number;
  /** Reads that failed (the caches were kept). */
  failures: number;
}

/**
 * Watches the access epoch for one server. {@link check} resolves once a read of the epoch
 * that *started after the call* has finished — so a request never trusts a cache older than a
 * change committed before it arrived — and calls `onChange` first when the stamp moved.
 * Concurrent requests share reads: a read starts on the next turn of the event loop
 * (`setImmediate`), so every request parsed in the same turn (several sockets' data arrive in
 * one poll) shares it; while one read is in flight, every request arriving meanwhile waits for
 * the one next read. The engine sees at most one read in flight and one queued, however many
 * requests there are. Not a TTL: every check still waits for a read that started after it.
 *
 * With the engine's commit marker (the embedded engine's WAL index header, one `pread`), a
 * check skips the read when nothing was committed to the platform graph since the last one.
 *
 * When the read fails (the engine is unreachable) the caches are kept: the request's own reads
 * fail, or the API-key cache serves its stale entry as it does without this check.
 */
const RESOLVED = Promise.resolve();
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AccessEpochWatch {
  #seen: string | null | undefined;
  #running: Promise<void> | null = null;
  /** The next read, not started yet: checks made until it starts share it. */
  #queued: Promise<void> | null = null;
  /** The `alongside` callbacks of the checks the next read serves. */
  #alongside: Array<() => void> = [];
  /** The platform graph's commit marker taken just before the last read that succeeded, else null. */
  #readAt: string | null = null;
  readonly #stats: AccessEpochStats = { checks: 0, reads: 0, unchanged: 0, changes: 0, failures: 0 };

  constructor(
    private readonly read: () => Promise<string | null>,
    private readonly onChange: () => void,
    /** False (`ACCESS_EPOCH_CHECK=0`): {@link check} reads nothing and resolves at once. */
    private readonly enabled = true,
    /**
     * The platform graph's `commitMarker` (engines/port.ts), when its engine has one: a check
     * whose marker, taken after the check was asked for, equals the one taken just before the
     * last successful read needs no read — nothing was committed to the platform graph since,
     * by this process or any other, so that read's stamp still holds.
     */
    private readonly commitMarker?: () => string | null,
  ) {}

  /**
   * Resolves (never rejects) once a read started after this call has been compared.
   *
   * `alongside` (optional) is called in the same turn of the event loop as that read is
   * asked for, right after it: a read it starts on an engine that coalesces the point reads
   * of a turn (Neo4j, engines/neo4j/point-reads.ts) goes out in the same statement as the
   * epoch's, one round trip for both. It is a speculation: nothing it reads may be used
   * before this check has resolved and the request's access has been checked with the caches
   * it confirmed. Not called when the check is disabled.
   */
  check(alongside?: () => void): Promise<void> {
    if (!this.enabled) return RESOLVED;
    this.#stats.checks += 1;
    if (alongside !== undefined) this.#alongside.push(alongside);
    if (this.#queued === null) {
      // After the read in flight (if any), and after this turn's other requests have arrived.
      this.#queued = (this.#running ?? RESOLVED).then(nextTurn).then(() => {
        this.#queued = null;
        return this.#start();
      });
    }
    return this.#queued;
  }

  stats(): AccessEpochStats {
    return { ...this.#stats };
  }

  #start(): Promise<void> {
    const run: Promise<void> = this.#readOnce().finally(() => {
      if (this.#running === run) this.#running = null;
    });
    this.#running = run;
    // The read was asked for (synchronously, by #readOnce): what rides along goes in this turn.
    const alongside = this.#alongside;
    if (alongside.length > 0) {
      this.#alongside = [];
      for (const start of alongside) {
        try {
          start();
        } catch {
          // A speculation that failed to start is only a read not saved.
        }
      }
    }
    return run;
  }

  async #readOnce(): Promise<void> {
    let marker: string | null = null;
    try {
      marker = this.commitMarker?.() ?? null;
    } catch {
      // Unknown: read.
    }
    if (marker !== null && marker === this.#readAt && this.#seen !== undefined) {
      this.#stats.unchanged += 1;
      return;
    }
    this.#stats.reads += 1;
    let stamp: string | null;
    try {
      stamp = await this.read();
    } catch {
      this.#stats.failures += 1;
      this.#readAt = null;
      return;
    }
    // Taken before the read: anything committed after it moves the marker, so the next check reads.
    this.#readAt = marker;
    if (this.#seen !== undefined && stamp !== this.#seen) {
      this.#stats.changes += 1;
      this.onChange();
    }
    this.#seen = stamp;
  }
}
