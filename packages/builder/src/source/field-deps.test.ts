import { describe, expect, it } from 'vitest';
import { dependencyReader } from '../incremental/dependency-reader';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { isPartialDep } from './field-deps';
import { SnapshotSource } from './snapshot-source';
import { TrackingReader } from './tracking-reader';

function snapshotOf(items: SnapshotItem[]): Snapshot {
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: { id: 's', name: 'S' },
    types: [{ name: 'post', fields: [{ name: 'title', type: 'string' }] }],
    items,
    edges: [],
    templates: [],
  } as Snapshot;
}

const post = (fields: Record<string, unknown>): SnapshotItem => ({ id: 'post:a', type: 'post', fields });
const urls = new Map([['post:a', '/a/']]);

/** What a page that runs `read` on the view of post:a records, and whether a reader over `after` finds it changed. */
function record(read: (view: Record<string, unknown>) => unknown): string {
  const source = new SnapshotSource({ snapshot: snapshotOf([post({ title: 'T', body: 'B' })]) });
  const reader = new TrackingReader({ source, urls });
  reader.begin();
  read(reader.item('post:a')!);
  return reader.collect().items['post:a']!;
}

function changedBy(recorded: string, fields: Record<string, unknown>): boolean {
  const source = new SnapshotSource({ snapshot: snapshotOf([post(fields)]) });
  const reader = dependencyReader({ source, urls, templateHashes: new Map(), lists: null, graphUnchanged: true });
  return reader.itemHash('post:a', recorded) !== recorded;
}

describe('field-level item dependencies', () => {
  it('records the keys a page read, and only a change to those changes the dependency', () => {
    const recorded = record((view) => `${view.title} ${view.url}`);
    expect(isPartialDep(recorded)).toBe(true);
    expect(recorded.endsWith('["title","url"]')).toBe(true);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(false);
    expect(changedBy(recorded, { title: 'T2', body: 'B' })).toBe(true);
  });

  it('records a key the item lacks (liquidjs checks own keys first): its appearance is a change', () => {
    const recorded = record((view) => Object.hasOwn(view, 'subtitle'));
    expect(changedBy(recorded, { title: 'T', body: 'B' })).toBe(false);
    expect(changedBy(recorded, { title: 'T', body: 'B', subtitle: 'S' })).toBe(true);
  });

  it('records an item read without a key by its existence', () => {
    const recorded = record(() => null);
    expect(recorded.endsWith(':[]')).toBe(true);
    expect(changedBy(recorded, { title: 'other', body: 'other' })).toBe(false);
  });

  it.each([
    ['JSON.stringify', (view: Record<string, unknown>) => JSON.stringify(view)],
    ['Object.keys', (view: Record<string, unknown>) => Object.keys(view)],
    ['spreading', (view: Record<string, unknown>) => ({ ...view })],
  ])('counts %s as reading every field', (_name, read) => {
    const recorded = record(read);
    expect(isPartialDep(recorded)).toBe(false);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(true);
  });

  it('counts `fields` (the whole field object) as reading every field', () => {
    const recorded = record((view) => (view.fields as Record<string, unknown>).title);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(true);
  });

  it('does not count liquidjs probes (`toLiquid`) as reads', () => {
    const recorded = record((view) => view.toLiquid);
    expect(recorded.endsWith(':[]')).toBe(true);
  });
});
