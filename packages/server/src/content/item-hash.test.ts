import { contentHash } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { fieldPieces, itemHash, itemHasher, stringJson } from './item-hash';
import { type ItemMeta, itemProps, itemPropsJson } from './item-record';

const body = { time: 1_700_000_000_000, blocks: [], version: '1' };

/** Flat and nested fields, key orders, unicode, numbers, and values JSON.stringify writes otherwise. */
const cases: Array<Record<string, unknown>> = [
  {},
  { slug: 'place-1', name: 'Place', population: 12, about: 'x', ok: true, none: null },
  { b: 2, a: 1, skipped: undefined },
  { title: 'Ärger über Öl — 東京 🚀 "quoted" \\ \n', lone: '\ud800', n: -0, big: 1e21, small: 5e-7 },
  { tags: ['b', 'a', null, 3], empty: [] },
  { '10': 'ten', '9': 'nine', a_b: 1, A: 2, _x: 3 },
  { nested: { z: null, a: [1, { y: true, b: undefined }] }, list: [{ k: 1, a: 2 }] },
  { when: new Date(Date.UTC(2024, 0, 2)), tags: [undefined, 'x'] },
];

describe('itemHash', () => {
  it("is core's contentHash of {fields, body} for every kind of fields and body", () => {
    const bodies = [
      body,
      { time: 1, blocks: [{ id: 'blk_1', type: 'text', data: { text: 'x', a: 1 } }], version: '1' },
      null,
      undefined,
    ];
    for (const fields of cases) {
      for (const each of bodies) expect(itemHash(fields, each)).toBe(contentHash({ fields, body: each }));
    }
  });

  it('depends on every value and not on key order', () => {
    expect(itemHash({ a: 1, b: 2 }, body)).toBe(itemHash({ b: 2, a: 1 }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: 2 }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: '1' }, body));
    expect(itemHash({ a: 1 }, body)).not.toBe(itemHash({ a: 1 }, { ...body, time: 2 }));
  });

  it('refuses what JSON cannot represent, as contentHash does', () => {
    expect(() => itemHash({ n: Number.NaN }, body)).toThrow(TypeError);
    expect(() => itemHash({ list: [Number.POSITIVE_INFINITY] }, body)).toThrow(TypeError);
  });
});

describe('itemHasher', () => {
  it('hashes many fields with one shared body exactly as itemHash', () => {
    const hashOf = itemHasher(body);
    for (const fields of cases) expect(hashOf(fields)).toBe(itemHash(fields, body));
  });
});

describe('fieldPieces', () => {
  const meta = {
    status: 'draft',
    publishedEnvs: [],
    publishedVersions: {},
    publishedAt: null,
    version: 1,
    hash: 'sha256:00',
    body,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    createdBy: 'key:a',
    updatedBy: 'key:a',
  } as unknown as ItemMeta;

  it('gives the hash and the stored props each exactly as serializing the fields again does', () => {
    let flat = 0;
    for (const fields of cases) {
      const pieces = fieldPieces(fields);
      expect(itemHash(fields, body, pieces)).toBe(itemHash(fields, body));
      expect(itemHasher(body)(fields, pieces)).toBe(itemHash(fields, body));
      if (pieces === null) continue;
      flat += 1;
      expect(itemPropsJson(fields, pieces, meta)).toBe(JSON.stringify(itemProps(fields, meta)));
    }
    expect(flat).toBeGreaterThanOrEqual(5);
    // Nested values are not flat: those fields go the canonical way.
    expect(fieldPieces({ nested: { a: 1 } })).toBeNull();
  });

  it('gives no props text when a field has the name of a bookkeeping member', () => {
    for (const fields of [{ status: 'mine' }, { blockDocument: 'x' }, { version: undefined }]) {
      expect(itemPropsJson(fields, fieldPieces(fields)!, meta)).toBeNull();
    }
  });
});

describe('stringJson', () => {
  /** A deterministic generator (mulberry32), so a failure can be replayed from the logged seed. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Every character JSON escapes, the ones it writes as they are next to them, and pieces of
  // escapes written out (a backslash before n, quote, u) that must not be taken for escapes.
  const alphabet = [
    ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
    '"',
    '\\',
    '/',
    '\u007f',
    '\u2028',
    '\u2029',
    'a',
    'Z',
    ' ',
    '#',
    '*',
    'é',
    '東',
    '🚀',
    '\ud800',
    '\udfff',
    '\\n',
    '\\"',
    '\\u0041',
    'n',
    'u',
  ];
  const plain = 'A line of markdown with *emphasis*, "quotes" and a \\ backslash.\n';

  it('writes every string exactly as JSON.stringify does', () => {
    const seed = Number(process.env.STRING_JSON_SEED ?? Date.now() % 1_000_000);
    console.log(`stringJson seed ${seed} (STRING_JSON_SEED to replay)`);
    const next = random(seed);
    const strings: string[] = [
      '',
      'x'.repeat(255),
      'x'.repeat(256),
      plain.repeat(40),
      `${plain.repeat(40)}\t\r`,
      `${plain.repeat(40)}\u0000`,
      `${plain.repeat(40)}\b\f`,
      `${plain.repeat(40)}\ud83d\ude80`,
      `${plain.repeat(40)}\ud83d`,
      `${'\\'.repeat(300)}"`,
      `${'"'.repeat(300)}\\n`,
    ];
    for (let i = 0; i < 2000; i += 1) {
      const length = Math.floor(next() * 600);
      // mostly plain text with a few special characters, as a markdown body is
      let text = '';
      while (text.length < length) {
        text += next() < 0.9 ? 'word ' : alphabet[Math.floor(next() * alphabet.length)];
      }
      strings.push(text);
    }
    for (const text of strings) expect(stringJson(text), JSON.stringify(text)).toBe(JSON.stringify(text));
  });

  it('is what fieldPieces gives for a long text, and the hash and props stay those of the fields', () => {
    const fields = { slug: 'a', body: plain.repeat(60), title: 'T "1"' };
    const pieces = fieldPieces(fields)!;
    expect(pieces).toEqual(Object.entries(fields).map(([key, value]) => [key, JSON.stringify(value)]));
    expect(itemHash(fields, body, pieces)).toBe(contentHash({ fields, body }));
  });
});
