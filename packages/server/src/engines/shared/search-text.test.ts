import { describe, expect, it } from 'vitest';
import { searchableText, searchWords } from './search-text';

describe('searchWords', () => {
  it('splits on anything but letters and digits, lowercased', () => {
    expect(searchWords('Hello, WORLD! "x" OR y* café 2026')).toEqual([
      'hello',
      'world',
      'x',
      'or',
      'y',
      'café',
      '2026',
    ]);
    expect(searchWords('  ... ')).toEqual([]);
  });
});

describe('searchableText', () => {
  it('collects every string inside the props, nested ones included, and no keys', () => {
    expect(searchableText({ title: 'A', n: 1, tags: ['b', 'c'], body: { blocks: [{ text: 'd' }] } })).toBe(
      'A\nb\nc\nd',
    );
  });
});
