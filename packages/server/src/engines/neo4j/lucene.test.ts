import { describe, expect, it } from 'vitest';
import { escapeLucene, luceneQuery, textTerms } from './lucene';

describe('escapeLucene', () => {
  it('escapes every character of the query syntax', () => {
    const syntax = '+-&|!(){}[]^"~*?:\\/';
    expect(escapeLucene(syntax)).toBe([...syntax].map((char) => `\\${char}`).join(''));
    expect(escapeLucene('a b')).toBe('a\\ b');
    expect(escapeLucene('plain')).toBe('plain');
  });
});

describe('textTerms', () => {
  it('lowercases, folds diacritics and splits on everything but letters and digits', () => {
    expect(textTerms('Naïve CAFÉ, l’été—2024!')).toEqual(['naive', 'cafe', 'l', 'ete', '2024']);
    expect(textTerms('e\u0301clair')).toEqual(['eclair']);
    expect(textTerms('日本語 テキスト')).toEqual(['日本語', 'テキスト']);
  });
});

describe('luceneQuery', () => {
  it('requires the graph and every word, with operators read as plain words', () => {
    expect(luceneQuery({ graph: 'site-1', q: 'Tomatoes OR "zucchini" NOT* tomatoes' })).toBe(
      '+ftg:site\\-1 +ft:tomatoes +ft:or +ft:zucchini +ft:not',
    );
  });

  it('gives null for a q without words', () => {
    expect(luceneQuery({ graph: 'g', q: '  "*" ~ ' })).toBeNull();
  });
});
