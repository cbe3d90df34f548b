import type { SiteSnapshot, SnapshotItem } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { snapshotFingerprint } from './build-service';

function snapshot(
  items: Array<Partial<SnapshotItem>>,
  exportedAt = '2026-05-01T12:00:00.000Z',
): SiteSnapshot {
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: { id: 'site:s', name: 'S', slug: 's', graphName: 'site_s' },
    types: [],
    items: items.map((item) => ({
      id: 'post:a',
      type: 'post',
      fields: { title: 'A' },
      version: 1,
      hash: 'sha256:a',
      status: 'published',
      publishedEnvs: ['prod'],
      publishedAt: null,
      ...item,
    })),
    edges: [],
    templates: [],
    transforms: [],
    routes: [],
    views: [],
    exportedAt,
  } as unknown as SiteSnapshot;
}

describe('snapshotFingerprint', () => {
  it('changes with what a build renders: an item’s fields, version or publication', () => {
    const base = snapshotFingerprint(snapshot([{}]));
    expect(snapshotFingerprint(snapshot([{ fields: { title: 'B' } }]))).not.toBe(base);
    expect(snapshotFingerprint(snapshot([{ version: 2, hash: 'sha256:b' }]))).not.toBe(base);
    expect(snapshotFingerprint(snapshot([{ status: 'draft', publishedEnvs: [] }]))).not.toBe(base);
  });

  it('leaves out when the snapshot was taken and when items went live (a deployment going live stamps publishedAt)', () => {
    const base = snapshotFingerprint(snapshot([{}]));
    expect(snapshotFingerprint(snapshot([{}], '2027-01-01T00:00:00.000Z'))).toBe(base);
    expect(snapshotFingerprint(snapshot([{ publishedAt: '2026-05-01T12:01:00.000Z' }]))).toBe(base);
  });
});
