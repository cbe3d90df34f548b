import { canonicalJson, sha256Hex } from '@trelliscms/core';
import type { AuditRecord, AuditVerdict, Props } from '../port';

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

/** sha256 hex of `prevHash` + canonical JSON of `{seq, ts, actor, action, target, data}`. */
export function auditHash(prevHash: string, record: AuditHashInput): string {
  const { seq, ts, actor, action, target, data } = record;
  return sha256Hex(prevHash + canonicalJson({ seq, ts, actor, action, target, data }));
}

/**
 * Recomputes a chain read in sequence order. `broken` names the first bad record: a gap in
 * `seq` (which also catches a deleted record), a `prevHash` that is not the previous record's
 * hash, or a `hash` that does not match the record's content.
 */
export function verifyAuditChain(graph: string, records: Iterable<AuditRecord>): AuditVerdict {
  let count = 0;
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let last: AuditRecord | undefined;
  const verdict = (status: AuditVerdict['status'], reason: string | null): AuditVerdict => ({
    graph,
    status,
    records: count,
    last_seq: last?.seq ?? 0,
    ...(last ? { last_hash: last.hash } : {}),
    verified_at: new Date().toISOString(),
    reason,
  });
  for (const record of records) {
    count += 1;
    if (record.seq !== expectedSeq) {
      return verdict(
        'broken',
        `record seq ${record.seq}: expected seq ${expectedSeq} (a record is missing or out of order)`,
      );
    }
    if (record.prevHash !== prevHash) {
      return verdict(
        'broken',
        `record seq ${record.seq}: prevHash does not match the hash of the previous record`,
      );
    }
    let hash: string;
    try {
      hash = auditHash(prevHash, record);
    } catch (error) {
      return verdict('broken', `record seq ${record.seq}: cannot be hashed (${(error as Error).message})`);
    }
    if (record.hash !== hash) {
      return verdict(
        'broken',
        `record seq ${record.seq}: hash does not match its content (altered after it was written)`,
      );
    }
    last = record;
    prevHash = hash;
    expectedSeq += 1;
  }
  if (count === 0) return verdict('empty', null);
  return verdict('ok', null);
}
