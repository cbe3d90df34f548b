import {
  type ContentRecord,
  compareValues,
  conditionHolds,
  parseSort,
  parseWhere,
  randomInt,
  type StoredContentType,
  typeListQuery,
} from '@trelliscms/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentTestSite, createContentTestSite } from '../../../test/helpers/content-test-site';
import { testRandom } from '../../../test/helpers/test-seed';

const BOOK = {
  name: 'book',
  label: 'Book',
  nodeLabel: 'Book',
  keyField: 'title',
  fields: [
    { name: 'title', type: 'string', required: true },
    { name: 'isbn', type: 'string' },
    { name: 'year', type: 'number' },
    { name: 'rating', type: 'number' },
    { name: 'inPrint', type: 'boolean' },
    { name: 'genre', type: 'enum', values: ['sf', 'fantasy', 'crime'] },
    { name: 'tags', type: 'stringlist' },
    { name: 'day', type: 'date' },
  ],
};

const WORDS = ['The', 'dune', 'Foundation', 'of', 'Night', 'glass', 'Bead', 'game', 'river', 'AND', 'roll'];
const TAGS = ['sf', 'classic', 'Award', 'space'];

let site: ContentTestSite;
let all: ContentRecord[];

/** A random book: every field but the title is left out a quarter of the time. */
function randomBook(random: () => number, index: number): Record<string, unknown> {
  const pick = <T>(values: readonly T[]) => values[randomInt(random, 0, values.length - 1)]!;
  const maybe = (value: () => unknown) => (random() < 0.75 ? value() : undefined);
  const title = `${Array.from({ length: randomInt(random, 1, 3) }, () => pick(WORDS)).join(' ')} ${index}`;
  return {
    title,
    isbn: maybe(() => `0${randomInt(random, 100, 999)}`),
    year: maybe(() => randomInt(random, 1950, 2025)),
    rating: maybe(() => randomInt(random, 0, 50) / 10),
    inPrint: maybe(() => random() < 0.5),
    genre: maybe(() => pick(['sf', 'fantasy', 'crime'])),
    tags: maybe(() => TAGS.filter(() => random() < 0.4)),
    day: maybe(
      () => `20${randomInt(random, 10, 26)}-0${randomInt(random, 1, 9)}-1${randomInt(random, 0, 9)}`,
    ),
  };
}

beforeAll(async () => {
  site = await createContentTestSite();
  await site.createType(BOOK);
  const { random } = testRandom('items-list');
  for (let index = 0; index < 40; index++) {
    const response = await site.request({
      method: 'POST',
      url: '/api/content/book',
      payload: randomBook(random, index),
    });
    expect(response.statusCode, response.body).toBe(201);
    if (random() < 0.3) {
      const id = response.json().id;
      await site.request({ method: 'POST', url: `/api/content/book/${id}/publish` });
    }
  }
  all = (await site.request({ method: 'GET', url: '/api/content/book?limit=1000' })).json();
  expect(all).toHaveLength(40);
});
afterAll(async () => {
  await site.close();
});

const list = (query: string) => site.request({ method: 'GET', url: `/api/content/book?${query}` });

/** What core's list language selects from the items, in its order: the reference answer. */
function expected(where: string, sort: string): string[] {
  const typed = typeListQuery({
    type: BOOK as unknown as StoredContentType,
    where: parseWhere(where),
    sort: parseSort(sort),
  });
  const read = (item: ContentRecord, field: string): unknown => {
    if (field === 'status' || field === 'type' || field === 'createdAt' || field === 'updatedAt') {
      return item[field];
    }
    return item.fields[field];
  };
  return all
    .filter((item) =>
      typed.where.every((condition) => conditionHolds(read(item, condition.field), condition)),
    )
    .sort((a, b) => {
      for (const key of typed.sort) {
        const order = compareValues(read(a, key.field), read(b, key.field));
        if (order !== 0) return key.descending ? -order : order;
      }
      return a.id < b.id ? -1 : 1;
    })
    .map((item) => item.id);
}

describe('GET /api/content/{type} where and sort', () => {
  const cases: Array<[string, string]> = [
    ['', '-year'],
    ['', 'rating,-title'],
    ['year >= 1990', ''],
    ["year < '1990' and inPrint == true", '-rating'],
    ['inPrint != true', 'year'],
    ["genre == 'sf'", '-day,title'],
    ['genre != sf', ''],
    ['genre == null', ''],
    ["tags contains 'sf'", ''],
    ["tags contains 'Award' and year > 2000", 'updatedAt'],
    ["title contains 'the'", '-year'],
    ["title contains 'and roll'", ''],
    ['isbn', '-isbn'],
    ['isbn >= 0500', 'isbn'],
    ['rating <= 2.5 and rating > 0', '-rating'],
    ["day >= '2020' and day < '2024-06'", 'day'],
    ['status == published', ''],
    ["status != 'published' and year", 'status,-year'],
    ["type == 'book' and year > 2010", ''],
    ["type == 'movie'", ''],
    ['createdAt > 2000-01-01', '-createdAt'],
  ];

  it('selects and orders what the list language does in memory (the builder’s evaluator)', async () => {
    for (const [where, sort] of cases) {
      const query = new URLSearchParams({ where, sort, limit: '1000' });
      const response = await list(query.toString());
      expect(response.statusCode, `${where} | ${sort}: ${response.body}`).toBe(200);
      const ids = (response.json() as ContentRecord[]).map((item) => item.id);
      const want = expected(where, sort);
      expect(ids, `where=${where} sort=${sort}`).toEqual(want);
      expect(response.headers['x-total-count'], where).toBe(String(want.length));
    }
  });

  it('pages a filtered, sorted list; the envelope and X-Total-Count count every match', async () => {
    const where = 'year >= 1970';
    const want = expected(where, '-year');
    expect(want.length).toBeGreaterThan(4);
    const query = new URLSearchParams({ where, sort: '-year', withMeta: '1', limit: '3', offset: '2' });
    const response = await list(query.toString());
    const page = response.json() as { items: ContentRecord[]; total: number; appliedFilters: unknown };
    expect(page.items.map((item) => item.id)).toEqual(want.slice(2, 5));
    expect(page.total).toBe(want.length);
    expect(page.appliedFilters).toEqual({ where, sort: '-year' });
    expect(response.headers['x-total-count']).toBe(String(want.length));
  });

  it('answers 400 invalid_list_query naming each problem', async () => {
    const bad: Array<[string, string]> = [
      ['where=colour == red', '`colour` is not a field of book'],
      ['where=year > soon', '`year > \\"soon\\"` needs a number'],
      ["where=tags == 'sf'", 'is a list: use contains'],
      ["where=genre == 'poetry'", 'needs one of sf, fantasy, crime'],
      ['where=title == two words', 'is not one value'],
      ["where=id == 'book:x'", '`id` cannot filter a content list'],
      ['sort=-slug', '`slug` sorts a content list ascending only'],
      ['sort=tags', '`tags` is a list and cannot be a sort key'],
      ['sort=year desc', '`year desc` is not a sort key'],
    ];
    for (const [query, message] of bad) {
      const response = await list(new URLSearchParams(query).toString());
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toMatchObject({ code: 'invalid_list_query' });
      expect(response.body, query).toContain(message);
    }
  });

  it('sorts by slug ascending as by id', async () => {
    const response = await list('sort=slug,-year');
    expect((response.json() as ContentRecord[]).map((item) => item.id)).toEqual(all.map((item) => item.id));
  });

  it('refuses an unknown status with 400 instead of an empty list', async () => {
    const response = await list('status=archived');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed' });
    expect(response.body).toContain('querystring.status');
    const drafts = (await list('status=draft&limit=1000')).json() as ContentRecord[];
    expect(drafts.map((item) => item.id)).toEqual(expected("status == 'draft'", ''));
  });
});
