import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../port';
import { anchorMac, auditHash, auditMac, GENESIS_HASH, unkeyedPrefix, verifyAuditChain } from './audit-chain';

const key = Buffer.from('k'.repeat(32));
const otherKey = Buffer.from('o'.repeat(32));

type Hasher = (prevHash: string, body: Omit<AuditRecord, 'prevHash' | 'hash'>) => string;
const keyed: Hasher = (prevHash, body) => auditMac(key, prevHash, body);
const unkeyed: Hasher = (prevHash, body) => auditHash(prevHash, body);

/** A chain of `length` records; `hashOf(seq)` picks each record's hash function (keyed by default). */
function chain(length: number, hashOf: (seq: number) => Hasher = () => keyed): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= length; seq++) {
    const body = { seq, ts: `2026-01-0${seq}T00:00:00.000Z`, actor: 'u1', action: 'a', target: `t${seq}` };
    const hash = hashOf(seq)(prevHash, body);
    records.push({ ...body, prevHash, hash });
    prevHash = hash;
  }
  return records;
}

describe('verifyAuditChain', () => {
  it('reports ok, empty and the last record', () => {
    const records = chain(3);
    expect(verifyAuditChain('g', records, key)).toMatchObject({
      graph: 'g',
      status: 'ok',
      records: 3,
      last_seq: 3,
      last_hash: records[2]?.hash,
      reason: null,
      bad_seq: null,
      anchored_seq: null,
      legacy_through: 0,
    });
    expect(verifyAuditChain('g', [], key)).toMatchObject({
      status: 'empty',
      records: 0,
      last_seq: 0,
      reason: null,
    });
  });

  it('hashes prevHash plus the canonical record, data included, keyed by the key', () => {
    const body = { seq: 1, ts: 't', actor: 'a', action: 'b', target: 'c', data: { z: 1, a: [true] } };
    const reordered = { target: 'c', data: { a: [true], z: 1 }, action: 'b', actor: 'a', ts: 't', seq: 1 };
    expect(auditMac(key, GENESIS_HASH, body)).toBe(auditMac(key, GENESIS_HASH, reordered));
    expect(auditMac(key, GENESIS_HASH, body)).toMatch(/^[0-9a-f]{64}$/);
    expect(auditMac(key, GENESIS_HASH, body)).not.toBe(
      auditMac(key, GENESIS_HASH, { ...body, data: { z: 2, a: [true] } }),
    );
    expect(auditMac(key, GENESIS_HASH, body)).not.toBe(auditMac(otherKey, GENESIS_HASH, body));
    expect(auditMac(key, GENESIS_HASH, body)).not.toBe(auditHash(GENESIS_HASH, body));
    expect(auditHash(GENESIS_HASH, body)).toBe(auditHash(GENESIS_HASH, reordered));
  });

  it('names the first bad record: altered content, a deleted record, a relinked chain', () => {
    const altered = chain(4);
    altered[1] = { ...(altered[1] as AuditRecord), target: 'elsewhere' };
    expect(verifyAuditChain('g', altered, key)).toMatchObject({ status: 'broken', last_seq: 1, bad_seq: 2 });
    expect(verifyAuditChain('g', altered, key).reason).toContain('seq 2');

    const gap = chain(4).filter((record) => record.seq !== 3);
    expect(verifyAuditChain('g', gap, key)).toMatchObject({ status: 'broken', bad_seq: 3 });
    expect(verifyAuditChain('g', gap, key).reason).toContain('seq 4');

    const relinked = chain(3);
    relinked[2] = { ...(relinked[2] as AuditRecord), prevHash: GENESIS_HASH };
    expect(verifyAuditChain('g', relinked, key)).toMatchObject({ status: 'broken', bad_seq: 3 });
    expect(verifyAuditChain('g', relinked, key).reason).toContain('seq 3');
  });

  it('refuses a chain rewritten consistently without the key: unkeyed, or under another key', () => {
    expect(
      verifyAuditChain(
        'g',
        chain(3, () => unkeyed),
        key,
      ),
    ).toMatchObject({
      status: 'broken',
      bad_seq: 1,
    });
    const forged = chain(3, () => (prevHash, body) => auditMac(otherKey, prevHash, body));
    expect(verifyAuditChain('g', forged, key)).toMatchObject({ status: 'broken', bad_seq: 1 });
  });

  it('accepts unkeyed records up to legacyThrough only', () => {
    const upgraded = chain(5, (seq) => (seq <= 3 ? unkeyed : keyed));
    expect(verifyAuditChain('g', upgraded, key, { legacyThrough: 3 })).toMatchObject({
      status: 'ok',
      legacy_through: 3,
    });
    expect(verifyAuditChain('g', upgraded, key, { legacyThrough: 2 })).toMatchObject({
      status: 'broken',
      bad_seq: 3,
    });
    // Unkeyed records written after the boundary (by someone without the key) are refused.
    const appended = chain(5, (seq) => (seq <= 3 || seq === 5 ? unkeyed : keyed));
    expect(verifyAuditChain('g', appended, key, { legacyThrough: 3 })).toMatchObject({
      status: 'broken',
      bad_seq: 5,
    });
    // Rewriting the legacy prefix consistently breaks the first keyed record, which covers its prevHash.
    const rewritten = chain(5, (seq) => (seq <= 3 ? unkeyed : keyed));
    const prefix = chain(3, () => unkeyed).map((record) => ({ ...record }));
    prefix[0] = { ...(prefix[0] as AuditRecord), actor: 'someone-else' };
    let prevHash = GENESIS_HASH;
    for (const record of prefix) {
      record.prevHash = prevHash;
      record.hash = auditHash(prevHash, record);
      prevHash = record.hash;
    }
    const relinked = [...prefix, { ...(rewritten[3] as AuditRecord), prevHash }, rewritten[4] as AuditRecord];
    expect(verifyAuditChain('g', relinked, key, { legacyThrough: 3 })).toMatchObject({
      status: 'broken',
      bad_seq: 4,
    });
  });

  it('checks anchored heads: a chain cut short, and a chain differing at the anchor', () => {
    const records = chain(5);
    const anchor = { seq: 5, hash: records[4]?.hash as string, source: 'platform store' };
    expect(verifyAuditChain('g', records, key, { anchors: [anchor] })).toMatchObject({
      status: 'ok',
      anchored_seq: 5,
    });
    const truncated = verifyAuditChain('g', records.slice(0, 3), key, { anchors: [anchor] });
    expect(truncated).toMatchObject({ status: 'broken', bad_seq: 4, anchored_seq: 5, last_seq: 3 });
    expect(truncated.reason).toContain('head anchored at seq 5 (platform store) but chain ends at 3');
    expect(verifyAuditChain('g', [], key, { anchors: [anchor] })).toMatchObject({
      status: 'broken',
      bad_seq: 1,
    });
    // A legacy chain rewritten consistently, its head anchored before the rewrite.
    const legacy = chain(3, () => unkeyed);
    const head = { seq: 3, hash: legacy[2]?.hash as string, source: 'build b1' };
    const rewritten = chain(3, () => unkeyed).map((record) => ({ ...record, actor: 'forger' }));
    let prevHash = GENESIS_HASH;
    for (const record of rewritten) {
      record.prevHash = prevHash;
      record.hash = auditHash(prevHash, record);
      prevHash = record.hash;
    }
    const verdict = verifyAuditChain('g', rewritten, key, { legacyThrough: 3, anchors: [head] });
    expect(verdict).toMatchObject({ status: 'broken', bad_seq: 3 });
    expect(verdict.reason).toContain('build b1');
    // Several anchors: the lowest failing one is reported; an anchor at 0 asks nothing.
    expect(
      verifyAuditChain('g', records, key, {
        anchors: [
          { seq: 0, hash: GENESIS_HASH, source: 'x' },
          { ...anchor, seq: 7 },
        ],
      }),
    ).toMatchObject({ status: 'broken', anchored_seq: 7, bad_seq: 6 });
  });
});

describe('unkeyedPrefix', () => {
  it('finds where the unkeyed records of a chain written before keying end', () => {
    expect(unkeyedPrefix([])).toEqual({ seq: 0, hash: GENESIS_HASH, complete: true });
    expect(unkeyedPrefix(chain(3))).toMatchObject({ seq: 0, complete: false });
    const upgraded = chain(5, (seq) => (seq <= 3 ? unkeyed : keyed));
    expect(unkeyedPrefix(upgraded)).toEqual({ seq: 3, hash: upgraded[2]?.hash, complete: false });
    const legacy = chain(4, () => unkeyed);
    expect(unkeyedPrefix(legacy)).toMatchObject({ seq: 4, complete: true });
    // Page by page.
    const first = unkeyedPrefix(legacy.slice(0, 2));
    expect(first).toMatchObject({ seq: 2, complete: true });
    expect(unkeyedPrefix(legacy.slice(2), first)).toEqual({ seq: 4, hash: legacy[3]?.hash, complete: true });
  });
});

describe('anchorMac', () => {
  it('depends on the key, the purpose and every part', () => {
    const mac = anchorMac(key, 'head', ['g', 3, 'abc']);
    expect(mac).toMatch(/^[0-9a-f]{64}$/);
    expect(anchorMac(otherKey, 'head', ['g', 3, 'abc'])).not.toBe(mac);
    expect(anchorMac(key, 'other', ['g', 3, 'abc'])).not.toBe(mac);
    expect(anchorMac(key, 'head', ['g', 4, 'abc'])).not.toBe(mac);
    expect(anchorMac(key, 'head', ['g\n3', 'abc'])).not.toBe(mac);
  });
});
