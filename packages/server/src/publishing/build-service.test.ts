import type { SiteSnapshot } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { snapshotFingerprint } from './build-service';

const snapshot = (item: Record<string, unknown>, exportedAt = '2026-05-01T12:00:00.000Z') =>
  ({
    format: 'trellis-snapshot',
    version: 1,
    site: { id: 'site:s', name: 'S', slug: 's' },
    types: [],
    items: [
      {
        id: 'post:a',
        type: 'post',
        fields: { title: 'A' },
        version: 2,
        hash: 'sha256:aa',
        status: 'published',
        publishedEnvs: ['prod'],
        publishedAt: '2026-05-01T10:00:00.000Z',
        ...item,
      },
    ],
    edges: [],
    templates: [],
    transforms: [],
    routes: [],
    views: [],
    exportedAt,
  }) as unknown as SiteSnapshot;

describe('snapshotFingerprint', () => {
  it('ignores when the snapshot was taken and when its items were published (no build reads them)', () => {
    const base = snapshotFingerprint(snapshot({}));
    expect(snapshotFingerprint(snapshot({}, '2027-01-01T00:00:00.000Z'))).toBe(base);
    expect(snapshotFingerprint(snapshot({ publishedAt: '2026-05-01T12:01:00.000Z' }))).toBe(base);
    expect(snapshotFingerprint(snapshot({ publishedAt: null }))).toBe(base);
  });

  it('changes with what a build renders: fields, version, status, the environments an item is live in', () => {
    const base = snapshotFingerprint(snapshot({}));
    for (const change of [
      { fields: { title: 'B' } },
      { version: 3, hash: 'sha256:bb' },
      { status: 'draft', publishedEnvs: [] },
      { updatedAt: '2026-05-01T11:00:00.000Z' },
    ]) {
      expect(snapshotFingerprint(snapshot(change)), JSON.stringify(change)).not.toBe(base);
    }
  });
});
