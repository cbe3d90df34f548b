import { createHmac } from 'node:crypto';
import { canonicalJson, sha256Hex } from '@trelliscms/core';
import type { AuditRecord, AuditVerdict, Props, VerifyAuditOptions } from '../port';

/** The `prevHash` of the first record of every chain: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields a record's hash covers, besides the previous hash. */
export interface AuditHashInput {
  seq: number;
  ts: string;
  actor: string;
  action: string;
  target: string;
  data?: Props;
}

function hashedText(prevHash: string, record: AuditHashInput): string {
  const { seq, ts, actor, action, target, data } = record;
  return prevHash + canonicalJson({ seq, ts, actor, action, target, data });
}

/**
 * The unkeyed hash of chains written before the chain was keyed: sha256 hex of `prevHash` +
 * canonical JSON of `{seq, ts, actor, action, target, data}`. Anyone can recompute it, so it
 * proves nothing against someone who can write the graph; verification accepts it only for
 * records up to the graph's anchored `legacyThrough` (docs/audit.md).
 */
export function auditHash(prevHash: string, record: AuditHashInput): string {
  return sha256Hex(hashedText(prevHash, record));
}

/**
 * The keyed hash every record is written with: HMAC-SHA256 under the server's audit key over
 * the same text as {@link auditHash}, as 64 hex digits. Without the key nobody can write a
 * record (or rewrite a chain) that verifies.
 */
export function auditMac(key: Uint8Array, prevHash: string, record: AuditHashInput): string {
  return createHmac('sha256', key).update(hashedText(prevHash, record)).digest('hex');
}

/**
 * HMAC-SHA256 hex of a record kept outside the graph (an anchored head): over the JSON array of
 * a `purpose` tag and its parts, so that a value minted for one purpose never verifies as
 * another. The server's anchors (the platform store, build manifests) carry it.
 */
export function anchorMac(key: Uint8Array, purpose: string, parts: ReadonlyArray<string | number>): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([`trellis-audit-${purpose}`, ...parts]))
    .digest('hex');
}

/**
 * How far the chain's prefix of unkeyed records reaches: the seq and hash of the last record of
 * the longest prefix whose records are intact unkeyed ({@link auditHash}) records; seq 0 when
 * the first record is keyed (every chain begun after keying) or the chain is empty. Reads a long
 * chain a page at a time: pass the previous page's result as `from` while it is `complete`
 * (every record given extended the prefix). The server anchors it once per graph as the
 * graph's `legacyThrough` (docs/audit.md).
 */
export function unkeyedPrefix(
  records: Iterable<AuditRecord>,
  from: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH },
): { seq: number; hash: string; complete: boolean } {
  let prevHash = from.hash;
  let expectedSeq = from.seq + 1;
  for (const record of records) {
    const stop = { seq: expectedSeq - 1, hash: prevHash, complete: false };
    if (record.seq !== expectedSeq || record.prevHash !== prevHash) return stop;
    let hash: string;
    try {
      hash = auditHash(prevHash, record);
    } catch {
      return stop;
    }
    if (record.hash !== hash) return stop;
    prevHash = hash;
    expectedSeq += 1;
  }
  return { seq: expectedSeq - 1, hash: prevHash, complete: true };
}

/**
 * Recomputes a chain read in sequence order. `broken` names the first bad record (`bad_seq`): a
 * gap in `seq` (which also catches a deleted record), a `prevHash` that is not the previous
 * record's hash, or a `hash` that is not the keyed hash of the record's content (the unkeyed one
 * is accepted up to `options.legacyThrough` only). Then each anchor of `options.anchors` must
 * hold: the chain reaches its seq, and the record there has its hash; a chain cut short
 * is reported as "head anchored at seq N but chain ends at M".
 */
export function verifyAuditChain(
  graph: string,
  records: Iterable<AuditRecord>,
  key: Uint8Array,
  options: VerifyAuditOptions = {},
): AuditVerdict {
  const legacyThrough = options.legacyThrough ?? 0;
  const anchors = [...(options.anchors ?? [])].sort((a, b) => a.seq - b.seq);
  const anchoredSeq = anchors.length > 0 ? (anchors[anchors.length - 1]?.seq ?? 0) : null;
  const hashAt = new Map<number, string>(anchors.map((anchor) => [anchor.seq, '']));
  let count = 0;
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let last: AuditRecord | undefined;
  const verdict = (
    status: AuditVerdict['status'],
    reason: string | null,
    badSeq: number | null = null,
  ): AuditVerdict => ({
    graph,
    status,
    records: count,
    last_seq: last?.seq ?? 0,
    ...(last ? { last_hash: last.hash } : {}),
    verified_at: new Date().toISOString(),
    reason,
    bad_seq: badSeq,
    anchored_seq: anchoredSeq,
    legacy_through: legacyThrough,
  });
  for (const record of records) {
    count += 1;
    if (record.seq !== expectedSeq) {
      return verdict(
        'broken',
        `record seq ${record.seq}: expected seq ${expectedSeq} (a record is missing or out of order)`,
        Math.min(record.seq, expectedSeq),
      );
    }
    if (record.prevHash !== prevHash) {
      return verdict(
        'broken',
        `record seq ${record.seq}: prevHash does not match the hash of the previous record`,
        record.seq,
      );
    }
    let keyed: string;
    let unkeyed: string;
    try {
      keyed = auditMac(key, prevHash, record);
      unkeyed = record.seq <= legacyThrough ? auditHash(prevHash, record) : '';
    } catch (error) {
      return verdict(
        'broken',
        `record seq ${record.seq}: cannot be hashed (${(error as Error).message})`,
        record.seq,
      );
    }
    if (record.hash !== keyed && (unkeyed === '' || record.hash !== unkeyed)) {
      return verdict(
        'broken',
        `record seq ${record.seq}: hash does not match its content under the server's audit key (altered after it was written, or written without the key)`,
        record.seq,
      );
    }
    if (hashAt.has(record.seq)) hashAt.set(record.seq, record.hash);
    last = record;
    prevHash = record.hash;
    expectedSeq += 1;
  }
  const lastSeq = last?.seq ?? 0;
  for (const anchor of anchors) {
    if (anchor.seq <= 0) continue;
    if (anchor.seq > lastSeq) {
      return verdict(
        'broken',
        `head anchored at seq ${anchor.seq} (${anchor.source}) but chain ends at ${lastSeq}: records were deleted`,
        lastSeq + 1,
      );
    }
    if (hashAt.get(anchor.seq) !== anchor.hash) {
      return verdict(
        'broken',
        `record seq ${anchor.seq}: hash differs from the head anchored at seq ${anchor.seq} (${anchor.source}): the chain was rewritten`,
        anchor.seq,
      );
    }
  }
  if (count === 0) return verdict('empty', null);
  return verdict('ok', null);
}
