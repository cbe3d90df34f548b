import type { RandomSource } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { testRandom } from '../../test/helpers/test-seed';
import {
  contentRecordJson,
  contentRecordJsonFromText,
  type ItemMeta,
  itemProps,
  itemPropsJson,
  newItemsJson,
  splitItemProps,
  toContentRecord,
} from './item-record';

/** What GET item answered before contentRecordJson: the props parsed, the record built, serialized. */
function parsedRecordJson(id: string, propsJson: string, relationships?: Record<string, unknown>) {
  const record = toContentRecord({ id, labels: [], props: JSON.parse(propsJson) }, relationships);
  return { json: JSON.stringify(record), version: record.version ?? 1 };
}

const pick = <T>(random: RandomSource, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)] as T;

const STRINGS = [
  '',
  'plain',
  'Ärger über Öl — 東京 🚀',
  '"quoted" \\ back\\slash \n\t\r\b\f',
  '\u0000\u0001\u001f\u007f',
  'lone \ud800 and \udfff',
  'line\u2028para\u2029',
  '{"status":"published","version":99}',
  '],}{[,"',
  '\\"',
  '\\',
];
const NUMBERS = [
  0, -0, 1, -1, 42, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789012345680000, -3.5,
];
const KEYS = [
  'title',
  'slug',
  'name_2',
  '名前',
  '🚀',
  'a"b',
  'back\\slash',
  'new\nline',
  '__proto__',
  'constructor',
  'toString',
  '0',
  '10',
  '9',
  '-1',
  '4294967295',
  'body',
  'fields',
  'id',
  'type',
  'relationships',
];
const META_KEYS = [
  'status',
  'publishedEnvs',
  'publishedVersions',
  'publishedAt',
  'version',
  'hash',
  'blockDocument',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
];

function randomValue(random: RandomSource, depth: number): unknown {
  const kind = Math.floor(random() * (depth > 3 ? 4 : 6));
  if (kind === 0) return pick(random, STRINGS);
  if (kind === 1) return pick(random, NUMBERS);
  if (kind === 2) return pick(random, [true, false, null]);
  if (kind === 3) return pick(random, STRINGS) + String(Math.floor(random() * 1000));
  if (kind === 4)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i -= 1) {
    object[pick(random, [...KEYS, ...META_KEYS])] = randomValue(random, depth + 1);
  }
  return object;
}

/** A rich-text block document, nested lists and marks included. */
function richBody(random: RandomSource): unknown {
  return {
    time: Math.floor(random() * 2e12),
    blocks: Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => ({
      id: `blk_${i}`,
      type: pick(random, ['paragraph', 'header', 'list', 'quote']),
      data: {
        text: `${pick(random, STRINGS)} <b>bold</b> <a href="https://x.test/?a=1&b=\\"2\\"">link</a>`,
        items: [{ content: pick(random, STRINGS), items: [{ content: 'deep', items: [] }] }],
        level: 1 + Math.floor(random() * 3),
      },
    })),
    version: '1',
  };
}

/** A meta member's value: mostly what the server writes, sometimes another kind (old or odd data). */
function metaValue(random: RandomSource, key: string): unknown {
  if (random() < 0.25) return randomValue(random, 2);
  switch (key) {
    case 'status':
      return pick(random, ['draft', 'published', 'scheduled']);
    case 'publishedEnvs':
      return pick(random, [[], ['prod'], ['prod', 'staging']]);
    case 'publishedVersions':
      return { prod: 1 + Math.floor(random() * 9) };
    case 'version':
      return 1 + Math.floor(random() * 50);
    case 'hash':
      return `sha256:${'ab'.repeat(32)}`;
    case 'blockDocument':
      return richBody(random);
    default:
      return pick(random, ['2026-11-26T10:00:00.000Z', 'owner', '']);
  }
}

function randomProps(random: RandomSource): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  const keys: string[] = [];
  for (let i = Math.floor(random() * 7); i > 0; i -= 1) keys.push(pick(random, KEYS));
  for (const key of META_KEYS) if (random() < 0.8) keys.push(key);
  // The server writes fields first, then bookkeeping; older or other writers may not.
  if (random() < 0.3) keys.sort(() => random() - 0.5);
  for (const key of keys) {
    const value = META_KEYS.includes(key) ? metaValue(random, key) : randomValue(random, 0);
    // As JSON.parse would make it: an own `__proto__` member, not the prototype.
    Object.defineProperty(props, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return props;
}

describe('contentRecordJson', () => {
  it('gives the bytes of the parsed record for every shape of props (seeded)', () => {
    const { random } = testRandom('content-record-json');
    let fast = 0;
    for (let n = 0; n < 5000; n += 1) {
      const propsJson = JSON.stringify(randomProps(random));
      const id = pick(random, ['place:place-1', 'post:ünïcode-🚀', 'note:"q"', 'a:b:c']);
      const relationships = pick(random, [
        undefined,
        {},
        { near: ['place:a', 'place:b'] },
        { author: 'person:x' },
      ]);
      // The same answer, or the same error (String() of an object whose toString is not a function).
      const outcome = (make: () => unknown) => {
        try {
          return make();
        } catch (error) {
          return { threw: String(error) };
        }
      };
      expect(
        outcome(() => contentRecordJson(id, propsJson, relationships)),
        propsJson,
      ).toEqual(outcome(() => parsedRecordJson(id, propsJson, relationships)));
      if (contentRecordJsonFromText(id, propsJson, relationships) !== null) fast += 1;
    }
    // Both paths are taken: many shapes without a parse, the odd ones (escaped keys, odd bookkeeping) parsed.
    expect(fast).toBeGreaterThan(1000);
  });

  it('answers the items the server writes without parsing their props', () => {
    const props = {
      slug: 'place-1',
      title: 'Tōkyō "東京" 🚀 \\ \n',
      tags: ['a', 'b'],
      nested: { list: [{ a: 1 }, { b: [null, true] }] },
      status: 'published',
      publishedEnvs: ['prod'],
      publishedVersions: { prod: 3 },
      publishedAt: '2026-11-26T10:00:00.000Z',
      version: 3,
      hash: 'sha256:00',
      blockDocument: {
        time: 1,
        blocks: [{ id: 'b', type: 'paragraph', data: { text: 'x}]"' } }],
        version: '1',
      },
      createdAt: '2026-11-25T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:00.000Z',
      createdBy: 'owner',
      updatedBy: 'owner',
    };
    const propsJson = JSON.stringify(props);
    const fast = contentRecordJsonFromText('place:place-1', propsJson, { near: ['place:place-2'] });
    expect(fast).toEqual(parsedRecordJson('place:place-1', propsJson, { near: ['place:place-2'] }));
    expect(fast?.version).toBe(3);
    // A draft without dates or body, and no fields at all.
    for (const text of ['{}', '{"status":"draft","version":1}', '{"title":"x"}']) {
      expect(contentRecordJsonFromText('post:a', text, {})).toEqual(parsedRecordJson('post:a', text, {}));
    }
  });

  it('parses when the text has what it does not copy', () => {
    for (const text of ['{"a\\"b":1}', '{"__proto__":{"x":1}}', '{"createdAt":5}', '{"updatedAt":true}']) {
      expect(contentRecordJsonFromText('post:a', text, {})).toBeNull();
      expect(contentRecordJson('post:a', text, {})).toEqual(parsedRecordJson('post:a', text, {}));
    }
  });
});

describe('itemProps', () => {
  const created: ItemMeta = {
    status: 'draft',
    publishedEnvs: [],
    publishedVersions: {},
    publishedAt: null,
    version: 1,
    hash: 'sha256:01',
    body: { time: 5, blocks: [], version: '1' },
    createdAt: '2026-11-27T10:00:00.000Z',
    updatedAt: '2026-11-27T10:00:00.000Z',
    createdBy: 'apikey:owner',
    updatedBy: 'apikey:owner',
  };
  const fields = { slug: 'a', title: 'A' };

  it('leaves out the bookkeeping members that hold what a missing member reads as', () => {
    const props = itemProps(fields, created);
    expect(Object.keys(props)).toEqual([
      'slug',
      'title',
      'status',
      'hash',
      'blockDocument',
      'createdAt',
      'updatedAt',
      'createdBy',
    ]);
    // read back: the same fields and bookkeeping, the same record as with every member stored
    expect(splitItemProps(props)).toEqual({ fields, meta: created });
    const full = { ...fields, ...created, blockDocument: created.body, body: undefined };
    const json = JSON.stringify(props);
    expect(contentRecordJson('post:a', json)).toEqual(parsedRecordJson('post:a', JSON.stringify(full)));
    expect(contentRecordJsonFromText('post:a', json, undefined)).not.toBeNull();
    // the import's serializers write the same text
    expect(
      itemPropsJson(
        fields,
        [
          ['slug', '"a"'],
          ['title', '"A"'],
        ],
        created,
      ),
    ).toBe(json);
    expect(newItemsJson(created, ['slug', 'title'])?.(JSON.stringify(fields), created.hash)).toBe(json);
  });

  it('keeps every member that differs from what a missing one reads as', () => {
    const published: ItemMeta = {
      ...created,
      status: 'published',
      publishedEnvs: ['prod'],
      publishedVersions: { prod: 2 },
      publishedAt: '2026-11-27T11:00:00.000Z',
      version: 2,
      updatedBy: 'user:editor',
    };
    const props = itemProps(fields, published);
    for (const key of ['publishedEnvs', 'publishedVersions', 'publishedAt', 'version', 'updatedBy'])
      expect(props).toHaveProperty(key);
    expect(splitItemProps(props)).toEqual({ fields, meta: published });
    // taken down from its last environment: no environments, but a version of its own
    const down = itemProps(fields, { ...published, publishedEnvs: [], publishedVersions: {} });
    expect(down).not.toHaveProperty('publishedEnvs');
    expect(down).toMatchObject({ version: 2, publishedAt: published.publishedAt });
  });

  it('reads an item stored with every member (before they were left out) as before', () => {
    const stored = { ...fields, ...created, blockDocument: created.body } as Record<string, unknown>;
    delete stored.body;
    expect(splitItemProps(stored)).toEqual({ fields, meta: created });
    // an item stored without its updatedBy reads as last written by its creator
    const { updatedBy: _updatedBy, ...withoutUpdater } = stored;
    expect(splitItemProps(withoutUpdater).meta.updatedBy).toBe('apikey:owner');
  });
});
