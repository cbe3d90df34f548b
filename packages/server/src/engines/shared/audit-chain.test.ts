import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../port';
import { auditHash, GENESIS_HASH, verifyAuditChain } from './audit-chain';

function chain(length: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= length; seq++) {
    const body = { seq, ts: `2026-01-0${seq}T00:00:00.000Z`, actor: 'u1', action: 'a', target: `t${seq}` };
    const hash = auditHash(prevHash, body);
    records.push({ ...body, prevHash, hash });
    prevHash = hash;
  }
  return records;
}

describe('verifyAuditChain', () => {
  it('reports ok, empty and the last record', () => {
    const records = chain(3);
    expect(verifyAuditChain('g', records)).toMatchObject({
      graph: 'g',
      status: 'ok',
      records: 3,
      last_seq: 3,
      last_hash: records[2]?.hash,
      reason: null,
    });
    expect(verifyAuditChain('g', [])).toMatchObject({
      status: 'empty',
      records: 0,
      last_seq: 0,
      reason: null,
    });
  });

  it('hashes prevHash plus the canonical record, data included', () => {
    const body = { seq: 1, ts: 't', actor: 'a', action: 'b', target: 'c', data: { z: 1, a: [true] } };
    const reordered = { target: 'c', data: { a: [true], z: 1 }, action: 'b', actor: 'a', ts: 't', seq: 1 };
    expect(auditHash(GENESIS_HASH, body)).toBe(auditHash(GENESIS_HASH, reordered));
    expect(auditHash(GENESIS_HASH, body)).not.toBe(
      auditHash(GENESIS_HASH, { ...body, data: { z: 2, a: [true] } }),
    );
  });

  it('names the first bad record: altered content, a deleted record, a relinked chain', () => {
    const altered = chain(4);
    altered[1] = { ...(altered[1] as AuditRecord), target: 'elsewhere' };
    expect(verifyAuditChain('g', altered)).toMatchObject({ status: 'broken', last_seq: 1 });
    expect(verifyAuditChain('g', altered).reason).toContain('seq 2');

    const gap = chain(4).filter((record) => record.seq !== 3);
    expect(verifyAuditChain('g', gap).reason).toContain('seq 4');

    const relinked = chain(3);
    relinked[2] = { ...(relinked[2] as AuditRecord), prevHash: GENESIS_HASH };
    expect(verifyAuditChain('g', relinked)).toMatchObject({ status: 'broken' });
    expect(verifyAuditChain('g', relinked).reason).toContain('seq 3');
  });
});
