import { describe, expect, it } from 'vitest';
import {
  AppendBlockBody,
  BlockDocument,
  ContentItemParams,
  ContentList,
  ContentListQuery,
  ContentRecord,
  CreateContentBody,
  UpdateContentBody,
  validContentItemParams,
} from './content';

const record = {
  id: 'movie:alien',
  type: 'movie',
  fields: { title: 'Alien', released: 1979 },
  relationships: { director: 'person:ridley-scott' },
  createdAt: '2026-06-14T10:00:00Z',
  updatedAt: '2026-06-14T10:00:00.000+02:00',
};

describe('ContentRecord', () => {
  it('accepts the spec shape and needs id, type and fields', () => {
    expect(ContentRecord.parse(record)).toEqual(record);
    expect(ContentRecord.safeParse({ id: 'movie:alien', type: 'movie', fields: {} }).success).toBe(true);
    expect(ContentRecord.safeParse({ id: 'movie:alien', type: 'movie' }).success).toBe(false);
  });

  it('rejects ids that are not <type>:<slug>', () => {
    for (const id of ['alien', 'movie:', ':alien', 'movie:a lien', 'movie/alien', '1movie:alien']) {
      expect(ContentRecord.safeParse({ ...record, id }).success, id).toBe(false);
    }
  });

  it('rejects timestamps that are not ISO 8601 date-times', () => {
    expect(ContentRecord.safeParse({ ...record, createdAt: '14/06/2026' }).success).toBe(false);
  });
});

describe('ContentList', () => {
  it('is a bare array or the withMeta envelope', () => {
    expect(ContentList.safeParse([record]).success).toBe(true);
    const envelope = {
      items: [record],
      total: 12,
      limit: 1,
      offset: 0,
      appliedFilters: { status: 'published' },
    };
    expect(ContentList.parse(envelope)).toEqual(envelope);
    expect(ContentList.safeParse({ items: [record], total: 1, limit: null }).success).toBe(true);
    expect(ContentList.safeParse({ items: [record] }).success).toBe(false);
  });
});

describe('ContentListQuery', () => {
  it('reads withMeta 1/true and numeric limit and offset', () => {
    expect(
      ContentListQuery.parse({ withMeta: '1', limit: '20', offset: '40', q: 'alien', status: 'published' }),
    ).toEqual({
      withMeta: true,
      limit: 20,
      offset: 40,
      q: 'alien',
      status: 'published',
    });
    expect(ContentListQuery.parse({ withMeta: 'true' }).withMeta).toBe(true);
    expect(ContentListQuery.parse({}).withMeta).toBeUndefined();
  });

  it('rejects bad flags and out-of-range numbers', () => {
    for (const query of [
      { withMeta: 'yes' },
      { limit: '0' },
      { limit: '1001' },
      { limit: 'ten' },
      { offset: '-1' },
      { status: 'archived' },
      { where: 'x'.repeat(2001) },
    ]) {
      expect(ContentListQuery.safeParse(query).success, JSON.stringify(query)).toBe(false);
    }
  });
});

describe('content write bodies', () => {
  it('takes {fields, relationships?} or a free-form object', () => {
    expect(CreateContentBody.safeParse({ fields: { title: 'Alien' } }).success).toBe(true);
    expect(CreateContentBody.safeParse({ title: 'Alien', released: 1979 }).success).toBe(true);
    expect(CreateContentBody.safeParse(['Alien']).success).toBe(false);
    expect(CreateContentBody.safeParse('Alien').success).toBe(false);
  });

  it('takes a partial update with an expected version', () => {
    expect(UpdateContentBody.safeParse({ fields: { title: 'Aliens' }, expectedVersion: 3 }).success).toBe(
      true,
    );
    expect(UpdateContentBody.safeParse({ title: 'Aliens' }).success).toBe(true);
  });
});

describe('content path parameters', () => {
  it('needs the full id of the type of the path', () => {
    expect(ContentItemParams.safeParse({ type: 'movie', id: 'movie:alien' }).success).toBe(true);
    expect(ContentItemParams.safeParse({ type: 'movie', id: 'alien' }).success).toBe(false);
    expect(ContentItemParams.safeParse({ type: 'movie', id: 'person:alien' }).success).toBe(false);
  });
});

describe('blocks', () => {
  it('takes the block append body', () => {
    const body = {
      blockType: 'quote',
      fields: { text: 'In space…' },
      references: ['person:ripley'],
      order: 0,
    };
    expect(AppendBlockBody.parse(body)).toEqual(body);
    expect(AppendBlockBody.safeParse({ blockType: 'quote' }).success).toBe(false);
    expect(AppendBlockBody.safeParse({ ...body, order: -1 }).success).toBe(false);
    expect(AppendBlockBody.safeParse({ ...body, references: ['ripley'] }).success).toBe(false);
  });

  it('takes a block document', () => {
    const document = {
      time: 1_781_000_000_000,
      blocks: [{ id: 'b1', type: 'paragraph', data: { text: 'Hello' } }],
      version: '2.31.0',
    };
    expect(BlockDocument.parse(document)).toEqual(document);
    expect(BlockDocument.safeParse({ ...document, blocks: [{ type: 'paragraph', data: {} }] }).success).toBe(
      false,
    );
    expect(ContentRecord.safeParse({ ...record, body: document }).success).toBe(true);
  });
});

describe('validContentItemParams', () => {
  // Seeded, so a failure can be replayed: pieces that sit on every edge of the checks.
  const seed = 205;
  let state = seed;
  // mulberry32
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  const pick = <T>(items: readonly T[]): T => items[next() % items.length] as T;
  const typePieces = [
    'post',
    'Post',
    'a',
    'p-1',
    'p_1',
    '1post',
    '-x',
    '',
    'é',
    'po st',
    'x'.repeat(64),
    'x'.repeat(65),
  ];
  const slugPieces = ['hello', 'a', ':x', 'a:b', 'a/b', 'a?b', 'a#b', ' a', 'a b', 'é', '', '-', '😀', 'a\n'];

  it('accepts exactly what ContentItemParams accepts, with the value zod gives', () => {
    const cases: unknown[] = [
      null,
      undefined,
      'post',
      42,
      {},
      { type: 'post' },
      { id: 'post:a' },
      { type: 1, id: 'post:a' },
    ];
    for (let i = 0; i < 5_000; i += 1) {
      const type = pick(typePieces);
      const idType = next() % 4 === 0 ? pick(typePieces) : type;
      const id = next() % 10 === 0 ? pick(slugPieces) : `${idType}:${pick(slugPieces)}${pick(slugPieces)}`;
      cases.push(next() % 7 === 0 ? { type, id, extra: 'x' } : { type, id });
    }
    let accepted = 0;
    for (const params of cases) {
      const zod = ContentItemParams.safeParse(params);
      const fast = validContentItemParams(params);
      expect(fast, `seed ${seed}: ${JSON.stringify(params)}`).toEqual(zod.success ? zod.data : null);
      if (fast !== null) {
        accepted += 1;
        expect(Object.keys(fast)).toEqual(Object.keys(zod.data as object));
      }
    }
    // Both outcomes are exercised.
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(cases.length - 100);
  });
});
