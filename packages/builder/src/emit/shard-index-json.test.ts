import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { prng, testSeed } from '../../test/seed';
import { buildShardIndex, miniSearchOptions, type SearchDoc } from './search-index';
import { type IndexDoc, miniSearchIndexJson, tokenize } from './shard-index-json';

/** What MiniSearch itself writes for the same documents (the bytes `search.js` loads). */
function byMiniSearch(
  options: { fields: string[]; storeFields: string[]; idField: string },
  docs: readonly object[],
): string {
  const index = new MiniSearch<IndexDoc>(options);
  index.addAll(docs as IndexDoc[]);
  return JSON.stringify(index);
}

// Words that share prefixes (splits of the radix tree's edges in every order), case variants,
// punctuation and spaces of \p{P} and \p{Z}, non-ASCII letters, surrogate pairs, characters
// JSON escapes.
const pieces = [
  'a',
  'ab',
  'abc',
  'abd',
  'b',
  'ba',
  'bab',
  'Ab',
  'ABC',
  'test',
  'testing',
  'tester',
  'te',
  't',
  'été',
  'Été',
  'straße',
  'İstanbul',
  '😀',
  '😀x',
  'x😀',
  '"q"',
  'back\\slash',
  'tab\there',
  'ctl\u0001',
  'lone\ud800',
  '123',
  '12',
  '1234',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\u00a0',
  '\u2003',
  ', ',
  '.',
  '-',
  '—',
  '¿',
  '«',
  '»',
  '_',
  '(',
  ')',
  "'",
  '’',
];

/** The pieces of ASCII only (the tokenizer's scan; a text with any other goes through the regular expression). */
const asciiPieces = pieces.filter((piece) => /^[\0-\x7f]*$/.test(piece));

function randomText(rand: () => number, words: number, ascii = false): string {
  const from = ascii ? asciiPieces : pieces;
  let out = '';
  for (let i = 0; i < words; i++) out += from[Math.floor(rand() * from.length)];
  return out;
}

describe('tokenize', () => {
  it("splits as MiniSearch's tokenizer does, every ASCII character and mixes of others", () => {
    const seed = testSeed('tokenize', 1_127);
    const rand = prng(seed);
    const chars = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
    const others = ['é', '\u00a0', '\u2003', '—', '«', '😀', '\ud800', '\u{10100}'];
    const texts = ['', 'a', ' ', '  ', ' a ', 'a  b', ...chars, ...chars.map((c) => `x${c}y${c}${c}`)];
    for (let i = 0; i < 2_000; i++) {
      const from = i % 4 === 0 ? [...chars, ...others] : chars;
      let text = '';
      const length = Math.floor(rand() * 40);
      for (let j = 0; j < length; j++) text += from[Math.floor(rand() * from.length)];
      texts.push(text);
    }
    for (const text of texts)
      expect(tokenize(text), JSON.stringify(text)).toEqual(text.split(/[\n\r\p{Z}\p{P}]+/u));
  });
});

describe('miniSearchIndexJson', () => {
  it("gives MiniSearch's JSON, byte for byte, for random shards of search documents", () => {
    const seed = testSeed('miniSearchIndexJson', 20_261_127);
    const rand = prng(seed);
    for (let round = 0; round < 60; round++) {
      const count = round === 0 ? 0 : Math.floor(rand() * 300);
      // half the rounds with texts of ASCII only
      const ascii = round % 2 === 1;
      const docs: SearchDoc[] = [];
      for (let i = 0; i < count; i++) {
        docs.push({
          id: `post:${round}-${i}-${randomText(rand, 1)}`,
          url: `/posts/p${i}/`,
          title: rand() < 0.05 ? '' : randomText(rand, 1 + Math.floor(rand() * 6), ascii),
          type: rand() < 0.5 ? 'post' : 'page',
          text: rand() < 0.1 ? '' : randomText(rand, Math.floor(rand() * 80), ascii || rand() < 0.5),
        });
      }
      expect(buildShardIndex(docs), `round ${round} (seed ${seed})`).toBe(
        byMiniSearch(miniSearchOptions, docs),
      );
    }
  });

  it('gives the same JSON for absent and non-text-free fields, other stored fields and no stored fields', () => {
    const seed = testSeed('miniSearchIndexJson options', 7_131);
    const rand = prng(seed);
    const docs: IndexDoc[] = [];
    for (let i = 0; i < 200; i++) {
      const doc: Record<string, unknown> = { key: i * 7 };
      // some documents without one field or both (MiniSearch skips null and undefined)
      if (rand() < 0.8) doc.name = randomText(rand, 3);
      else if (rand() < 0.5) doc.name = null;
      if (rand() < 0.8) doc.body = randomText(rand, 30);
      if (rand() < 0.7) doc.url = `/x/${i}/`;
      if (rand() < 0.3) doc.extra = { nested: [i, 'é'] };
      docs.push(doc);
    }
    for (const options of [
      { fields: ['name', 'body'], storeFields: ['url', 'extra', 'name'], idField: 'key' },
      { fields: ['body', 'name'], storeFields: [], idField: 'key' },
      { fields: ['body'], storeFields: ['missing'], idField: 'key' },
    ]) {
      expect(miniSearchIndexJson(options, docs)).toBe(byMiniSearch(options, docs));
    }
  });

  it("refuses what MiniSearch refuses (no id, a duplicate id), with MiniSearch's messages", () => {
    const doc = { id: 'a', url: '/a/', title: 'A', type: 'post', text: 'x' };
    expect(() => buildShardIndex([doc, { ...doc }])).toThrow('MiniSearch: duplicate ID a');
    expect(() => byMiniSearch(miniSearchOptions, [doc, { ...doc }])).toThrow('MiniSearch: duplicate ID a');
    const noId = { url: '/b/', title: 'B', type: 'post', text: 'y' } as unknown as SearchDoc;
    expect(() => buildShardIndex([noId])).toThrow('MiniSearch: document does not have ID field "id"');
  });

  it('reports progress after each slice of documents and once the JSON is made', () => {
    const docs: SearchDoc[] = Array.from({ length: 1_001 }, (_, i) => ({
      id: `d${i}`,
      url: `/d${i}/`,
      title: `Doc ${i}`,
      type: 'post',
      text: 'some words',
    }));
    let calls = 0;
    const json = buildShardIndex(docs, () => calls++);
    // slices of 500: after 500, 1,000 and the last one; then once serialized
    expect(calls).toBe(4);
    expect(json).toBe(byMiniSearch(miniSearchOptions, docs));
  });
});
