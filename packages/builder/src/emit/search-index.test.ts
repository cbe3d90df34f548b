import { describe, expect, it } from 'vitest';
import { prng } from '../../test/seed';
import type { SnapshotItem, SnapshotType } from '../snapshot/types';
import { plainPrefix, searchDoc } from './search-index';

// The search text as it was made before long texts were read by a prefix: the whole text made
// plain, then cut. The documents must not change.
function plainWhole(value: string): string {
  return value
    .replace(/<[^>]*>/g, ' ')
    .replace(/[#*_`>[\]()!|~-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const type: SnapshotType = {
  name: 'post',
  label: 'Post',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'summary', type: 'text' },
    { name: 'body', type: 'markdown' },
  ],
} as SnapshotType;

describe('searchDoc', () => {
  it('gives the text of the whole fields for long texts with tags, punctuation and spaces at any place', () => {
    const seed = 20_261_125;
    const rand = prng(seed);
    const pieces = [
      'word',
      ' ',
      '\n\n',
      '**',
      '<b>',
      '</b>',
      '<',
      '>',
      '- ',
      '# ',
      '[a](b)',
      'é',
      '😀',
      '~~',
      '\t',
    ];
    const text = (length: number) => {
      let out = '';
      while (out.length < length) out += pieces[Math.floor(rand() * pieces.length)];
      return out;
    };
    for (let i = 0; i < 400; i++) {
      const title = rand() < 0.1 ? 'word' : `Title ${i}`;
      const summary = rand() < 0.5 ? text(Math.floor(rand() * 400)) : '';
      // around the window (1,200 characters) and far past it; some with a tag that opens inside
      // the window and closes past it, or never
      const open =
        rand() < 0.3 ? `<span ${'a b '.repeat(Math.floor(rand() * 600))}${rand() < 0.5 ? '>' : ''}` : '';
      const body = text(Math.floor(rand() * 1500)) + open + text(Math.floor(rand() * 2000));
      const item = { id: `post:p${i}`, type: 'post', fields: { title, summary, body } } as SnapshotItem;
      const expected = [summary, body]
        .map(plainWhole)
        .filter((part) => part && part !== title)
        .join(' ')
        .slice(0, 300);
      expect(searchDoc(item, type, `/p${i}/`).text, `seed ${seed}, item ${i}`).toBe(expected);
    }
  });

  it('leaves out a long text whose plain text is the title', () => {
    const title = 'x'.repeat(1500);
    const item = { id: 'post:t', type: 'post', fields: { title, body: `**${title}**` } } as SnapshotItem;
    expect(searchDoc(item, type, '/t/').text).toBe('');
  });

  it('makes the search text in one pass as the regular expressions did, and stops at a prefix of it', () => {
    const seed = 20_261_126;
    const rand = prng(seed);
    const pieces = [
      'word',
      'é',
      '😀',
      ' ',
      '\n',
      '\t',
      '\v',
      '\f',
      '\r',
      '\u00a0',
      '\u1680',
      '\u2003',
      '\u2028',
      '\u202f',
      '\u3000',
      '\ufeff',
      '\u200b',
      '<',
      '>',
      '<i>',
      '< x',
      ...'#*_`[]()!|~-=+.,;:{}\\/'.split(''),
    ];
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const length = Math.floor(rand() * 80);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(rand() * pieces.length)];
      const whole = plainWhole(text);
      expect(plainPrefix(text), `seed ${seed}, text ${i}: ${JSON.stringify(text)}`).toBe(whole);
      const limit = Math.floor(rand() * 40);
      const cut = plainPrefix(text, limit);
      expect(whole.startsWith(cut), `seed ${seed}, text ${i}, limit ${limit}`).toBe(true);
      expect(cut.length >= limit || cut === whole, `seed ${seed}, text ${i}, limit ${limit}`).toBe(true);
    }
  });
});
