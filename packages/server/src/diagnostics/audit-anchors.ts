import { AsyncResource } from 'node:async_hooks';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditHeadAnchor } from '@trelliscms/core';
import type {
  AuditAnchorCheck,
  AuditRecord,
  AuditVerdict,
  Graph,
  GraphEngine,
  VerifyAuditOptions,
} from '../engines/port';
import { anchorMac, GENESIS_HASH, unkeyedPrefix } from '../engines/shared/audit-chain';

/** The label of the nodes of the platform graph that hold a site graph's anchor. */
export const AUDIT_ANCHOR_LABEL = 'AuditAnchor';

/** The id of the node holding the anchor of site graph `graphName` in the platform graph. */
export function auditAnchorNodeId(graphName: string): string {
  return `auditanchor:${graphName}`;
}

/** The file, in the data directory, holding the platform graph's own anchor. */
export const PLATFORM_ANCHOR_FILE = 'audit-anchor.json';

/**
 * A graph's anchor as stored outside the graph: the head of its chain when last seen (`seq`,
 * `hash`), how far its records may carry the unkeyed hash of chains written before keying
 * (`legacyThrough`), and the server's HMAC over all of them and the graph's name.
 */
export interface StoredAnchor {
  graph: string;
  seq: number;
  hash: string;
  legacyThrough: number;
  mac: string;
}

/** What {@link AuditAnchors.verifyOptions} found: the options for `verifyAudit`, and anchors that fail their MAC. */
export interface AnchoredVerification {
  options: VerifyAuditOptions;
  /** Anchors that fail their MAC (forged, or written under another key): each makes the chain `broken`. */
  problems: string[];
}

/** A log with the two levels the anchors use. */
interface AnchorLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const PAGE = 1000;

/**
 * The heads of the audit chains, kept outside the graphs they describe (docs/audit.md): a site
 * graph's in the platform graph (an `AuditAnchor` node), the platform graph's in
 * `CMS_DATA_DIR/audit-anchor.json`, each with the server's HMAC. After each write to a graph,
 * {@link advance} raises its anchor to the chain's new head; a chain later cut short or rewritten
 * no longer reaches or matches it. The first time a graph is anchored (a graph written before
 * chains were keyed), its unkeyed prefix is recorded as `legacyThrough`.
 *
 * The anchor only moves forward, and only while the record it names still has the anchored
 * hash: a chain cut short and written on again is not re-anchored over the cut.
 */
export class AuditAnchors {
  private readonly pending = new Map<string, { running: Promise<void>; dirty: boolean }>();
  /** Graphs whose anchoring waits for the end of a bulk write ({@link hold}): holders, and whether a write came meanwhile. */
  private readonly holds = new Map<string, { count: number; dirty: boolean }>();
  /** Runs the work in the context the anchors were made in, outside any caller's transaction. */
  private readonly scope = new AsyncResource('trellis-audit-anchor');

  constructor(
    private readonly options: {
      key: Uint8Array;
      /** The engine, not the cache-notifying one: anchors are no data any cache holds. */
      engine: GraphEngine;
      /** The platform graph, opened on that engine. */
      platform: Graph;
      platformGraphName: string;
      /** CMS_DATA_DIR (the platform graph's anchor file, and the deploy folders' manifests). */
      dataDir: string;
      log: AnchorLog;
    },
  ) {}

  /** The MAC of a build manifest's `auditHead`. */
  headMac(graph: string, seq: number, hash: string): string {
    return anchorMac(this.options.key, 'head', [graph, seq, hash]);
  }

  /** The chain's head now, MACed, for a build manifest (null for an empty chain). */
  async headAnchor(graphName: string, graph: Graph): Promise<AuditHeadAnchor | null> {
    const head = (await graph.findAudit({ order: 'desc', limit: 1, total: false })).records[0];
    if (!head) return null;
    return {
      graph: graphName,
      seq: head.seq,
      hash: head.hash,
      mac: this.headMac(graphName, head.seq, head.hash),
    };
  }

  /**
   * Raises the graph's anchor to its chain's head, in the background: one run per graph at a
   * time; writes during a run cause one more run after it. Failures are logged. While the
   * graph is {@link hold held}, the run waits for the last holder's release.
   */
  advance(graphName: string): void {
    const held = this.holds.get(graphName);
    if (held) {
      held.dirty = true;
      return;
    }
    const state = this.pending.get(graphName);
    if (state) {
      state.dirty = true;
      return;
    }
    const entry = { running: Promise.resolve(), dirty: false };
    this.pending.set(graphName, entry);
    entry.running = this.scope.runInAsyncScope(async () => {
      try {
        const graph =
          graphName === this.options.platformGraphName
            ? this.options.platform
            : await this.options.engine.openGraph(graphName);
        if (graph) await this.advanceOnce(graphName, graph);
      } catch (error) {
        this.options.log.error({ err: error, graph: graphName }, 'could not anchor the audit chain');
      } finally {
        this.pending.delete(graphName);
        if (entry.dirty) this.advance(graphName);
      }
    });
  }

  /**
   * Holds the anchoring of `graphName` until the returned release is called (by every holder,
   * when several hold it): writes meanwhile raise the anchor once, at the release, instead of
   * after each of them. A bulk import holds it for its request, so its batches — each its own
   * transaction — cost one anchoring (a transaction of the platform graph) in all, not one each.
   * A run already started finishes; releasing twice is harmless.
   */
  hold(graphName: string): () => void {
    let held = this.holds.get(graphName);
    if (!held) {
      held = { count: 0, dirty: false };
      this.holds.set(graphName, held);
    }
    held.count += 1;
    const state = held;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.count -= 1;
      if (state.count > 0) return;
      this.holds.delete(graphName);
      if (state.dirty) this.advance(graphName);
    };
  }

  /**
   * Waits for the anchoring in flight: of one graph, its current run (so a graph written without
   * pause never keeps a caller waiting); of all graphs, until none is left (on close).
   */
  async settle(graphName?: string): Promise<void> {
    if (graphName !== undefined) {
      await this.pending.get(graphName)?.running;
      return;
    }
    while (this.pending.size > 0) await Promise.all([...this.pending.values()].map((state) => state.running));
  }

  /**
   * What `verifyAudit` of the graph checks besides the chain: its legacy boundary and anchored
   * head from the store (anchoring the graph first when it has no anchor yet), and for a site
   * graph the `auditHead` of every build manifest in its deploy folders.
   */
  async verifyOptions(graphName: string, graph: Graph): Promise<AnchoredVerification> {
    await this.settle(graphName);
    const problems: string[] = [];
    const anchors: AuditAnchorCheck[] = [];
    let stored = await this.read(graphName);
    if (stored === null) stored = await this.adopt(graphName, graph);
    let legacyThrough = 0;
    if (stored === 'forged') {
      problems.push(`the anchor of this chain in the ${this.storeName(graphName)} fails its MAC`);
    } else {
      legacyThrough = stored.legacyThrough;
      anchors.push({ seq: stored.seq, hash: stored.hash, source: this.storeName(graphName) });
    }
    if (graphName !== this.options.platformGraphName) {
      for (const { file, head } of await this.manifestHeads(graphName)) {
        if (head.graph !== graphName || head.mac !== this.headMac(head.graph, head.seq, head.hash)) {
          problems.push(`the audit head in ${file} fails its MAC`);
        } else {
          anchors.push({ seq: head.seq, hash: head.hash, source: `build manifest ${file}` });
        }
      }
    }
    return { options: { legacyThrough, anchors }, problems };
  }

  /**
   * Verifies the graph's chain against its anchors ({@link verifyOptions}); an anchor failing
   * its MAC makes an otherwise intact chain `broken`, with the reason.
   */
  async verify(graphName: string, graph: Graph): Promise<AuditVerdict> {
    const { options, problems } = await this.verifyOptions(graphName, graph);
    const verdict = await graph.verifyAudit(options);
    if (verdict.status === 'broken' || problems.length === 0) return verdict;
    return { ...verdict, status: 'broken', reason: problems.join('; ') };
  }

  /** Where a graph's anchor is kept, for messages. */
  private storeName(graphName: string): string {
    return graphName === this.options.platformGraphName ? `file ${PLATFORM_ANCHOR_FILE}` : 'platform store';
  }

  private mac(anchor: Omit<StoredAnchor, 'mac'>): string {
    return anchorMac(this.options.key, 'anchor', [
      anchor.graph,
      anchor.seq,
      anchor.hash,
      anchor.legacyThrough,
    ]);
  }

  private sealed(anchor: Omit<StoredAnchor, 'mac'>): StoredAnchor {
    return { ...anchor, mac: this.mac(anchor) };
  }

  /** The stored anchor, null when there is none, `forged` when it fails its MAC. */
  async read(graphName: string): Promise<StoredAnchor | 'forged' | null> {
    let value: unknown;
    if (graphName === this.options.platformGraphName) {
      try {
        value = JSON.parse(await readFile(join(this.options.dataDir, PLATFORM_ANCHOR_FILE), 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        return 'forged';
      }
    } else {
      const node = await this.options.platform.getNode(auditAnchorNodeId(graphName));
      if (!node) return null;
      value = node.props;
    }
    const anchor = value as Partial<StoredAnchor> | null;
    if (
      anchor === null ||
      typeof anchor !== 'object' ||
      anchor.graph !== graphName ||
      typeof anchor.seq !== 'number' ||
      typeof anchor.hash !== 'string' ||
      typeof anchor.legacyThrough !== 'number' ||
      anchor.mac !== this.mac(anchor as StoredAnchor)
    ) {
      return 'forged';
    }
    return anchor as StoredAnchor;
  }

  /**
   * Stores `next` unless the stored anchor is already as far (or forged: it is kept, for
   * verification to report). For a site graph the read and the write are one transaction of
   * the platform graph; the platform graph's file is replaced by a rename.
   */
  private async store(next: StoredAnchor): Promise<void> {
    const isPlatform = next.graph === this.options.platformGraphName;
    if (isPlatform) {
      const current = await this.read(next.graph);
      if (current === 'forged' || (current !== null && current.seq >= next.seq)) return;
      const file = join(this.options.dataDir, PLATFORM_ANCHOR_FILE);
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify(next)}\n`, { mode: 0o600 });
      await rename(temp, file);
      return;
    }
    await this.options.platform.transaction(async (tx) => {
      const id = auditAnchorNodeId(next.graph);
      const node = await tx.getNode(id);
      if (node) {
        const current = node.props as Partial<StoredAnchor>;
        if (current.mac !== this.mac(current as StoredAnchor)) return;
        if (typeof current.seq === 'number' && current.seq >= next.seq) return;
      }
      await tx.putNode({ id, labels: [AUDIT_ANCHOR_LABEL], props: { ...next } });
    });
  }

  /**
   * Anchors a graph seen for the first time: its chain's unkeyed prefix (records written before
   * chains were keyed) becomes `legacyThrough`, and the prefix's last record the anchored head.
   */
  private async adopt(graphName: string, graph: Graph): Promise<StoredAnchor | 'forged'> {
    let prefix = { seq: 0, hash: GENESIS_HASH };
    let afterSeq = 0;
    for (;;) {
      const page: AuditRecord[] = await graph.auditRecords({ afterSeq, limit: PAGE });
      const reached = unkeyedPrefix(page, prefix);
      prefix = { seq: reached.seq, hash: reached.hash };
      if (!reached.complete || page.length < PAGE) break;
      afterSeq = (page[page.length - 1] as AuditRecord).seq;
    }
    if (prefix.seq > 0) {
      this.options.log.warn(
        { graph: graphName, legacyThrough: prefix.seq },
        'audit chain written before keying: its unkeyed records are accepted up to this seq',
      );
    }
    await this.store(
      this.sealed({ graph: graphName, seq: prefix.seq, hash: prefix.hash, legacyThrough: prefix.seq }),
    );
    return (await this.read(graphName)) ?? 'forged';
  }

  private async advanceOnce(graphName: string, graph: Graph): Promise<void> {
    let anchor = await this.read(graphName);
    if (anchor === null) anchor = await this.adopt(graphName, graph);
    if (anchor === 'forged') return;
    const head = (await graph.findAudit({ order: 'desc', limit: 1, total: false })).records[0];
    if (!head || head.seq <= anchor.seq) return;
    if (anchor.seq > 0) {
      const [anchored] = await graph.auditRecords({ afterSeq: anchor.seq - 1, limit: 1 });
      if (anchored?.seq !== anchor.seq || anchored.hash !== anchor.hash) {
        this.options.log.error(
          { graph: graphName, anchoredSeq: anchor.seq },
          'the audit chain no longer matches its anchored head; the anchor is kept (see GET /api/audit/verify)',
        );
        return;
      }
    }
    await this.store(
      this.sealed({ graph: graphName, seq: head.seq, hash: head.hash, legacyThrough: anchor.legacyThrough }),
    );
  }

  /** The `auditHead` of every build manifest of a site graph's environments. */
  private async manifestHeads(graphName: string): Promise<Array<{ file: string; head: AuditHeadAnchor }>> {
    const siteDir = join(this.options.dataDir, 'sites', graphName);
    const out: Array<{ file: string; head: AuditHeadAnchor }> = [];
    let envs: string[];
    try {
      envs = await readdir(siteDir);
    } catch {
      return out;
    }
    for (const env of envs) {
      const dir = join(siteDir, env, 'manifests');
      let names: string[];
      try {
        names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
      } catch {
        continue;
      }
      for (const name of names) {
        let head: unknown;
        try {
          head = (JSON.parse(await readFile(join(dir, name), 'utf8')) as { auditHead?: unknown }).auditHead;
        } catch {
          continue;
        }
        if (head === undefined) continue;
        const file = `${env}/manifests/${name}`;
        const candidate = head as Partial<AuditHeadAnchor>;
        if (
          typeof candidate?.seq !== 'number' ||
          typeof candidate.hash !== 'string' ||
          typeof candidate.graph !== 'string' ||
          typeof candidate.mac !== 'string'
        ) {
          out.push({ file, head: { graph: '', seq: 0, hash: '', mac: '' } });
          continue;
        }
        out.push({ file, head: candidate as AuditHeadAnchor });
      }
    }
    return out;
  }
}
