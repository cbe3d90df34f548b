import { describe, expect, it } from 'vitest';
import type { GraphReader } from '../engines/port';
import { findMissingReferences, missingReferenceIssues, nextItemMeta } from './item-write';

/** A reader that knows the nodes `ids` (only getNodes is used). */
function readerOf(ids: string[]): GraphReader {
  return {
    getNodes: async (wanted: string[]) =>
      wanted.filter((id) => ids.includes(id)).map((id) => ({ id, labels: [], props: {} })),
  } as unknown as GraphReader;
}

describe('findMissingReferences', () => {
  it('answers the missing ids, once each, and counts pending ids as existing', async () => {
    const references = [
      { field: 'author', id: 'author:jane' },
      { field: 'editor', id: 'author:jane' },
      { field: 'tags', id: 'tag:a' },
      { field: 'tags', id: 'tag:new' },
    ];
    const missing = await findMissingReferences({
      reader: readerOf(['tag:a']),
      references,
      isPending: (id) => id === 'tag:new',
    });
    expect(missing).toEqual(['author:jane']);
    expect(missingReferenceIssues(references, new Set(missing))).toEqual([
      { field: 'author', message: 'points at author:jane, which does not exist' },
      { field: 'editor', message: 'points at author:jane, which does not exist' },
    ]);
  });
});

describe('nextItemMeta', () => {
  it('stamps version 1 of a new item and keeps the stamps of a replaced one', () => {
    const first = nextItemMeta({ previous: null, fields: { a: 1 }, actor: 'ann', now: 't1' });
    expect(first).toMatchObject({ status: 'draft', version: 1, createdAt: 't1', updatedBy: 'ann' });
    const published = { ...first, status: 'published', publishedEnvs: ['prod'] };
    const next = nextItemMeta({ previous: published, fields: { a: 2 }, actor: 'bob', now: 't2' });
    expect(next).toMatchObject({
      status: 'published',
      publishedEnvs: ['prod'],
      version: 2,
      createdAt: 't1',
      createdBy: 'ann',
      updatedAt: 't2',
      updatedBy: 'bob',
      body: first.body,
    });
    expect(next.hash).not.toBe(first.hash);
  });
});
