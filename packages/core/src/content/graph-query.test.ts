import { describe, expect, it } from 'vitest';
import type { FieldDefinition } from '../schemas/content-type';
import type { GraphQueryInput as GraphQuery } from '../schemas/queries';
import {
  bindQueryParams,
  checkGraphQuery,
  driveSync,
  type GraphQueryReader,
  type QueryItem,
  type QueryTypeInfo,
  runGraphQuery,
  runGraphQuerySync,
} from './graph-query';

const field = (name: string, type: string, extra: Partial<FieldDefinition> = {}) =>
  ({ name, type, ...extra }) as FieldDefinition;

const types: QueryTypeInfo[] = [
  {
    name: 'post',
    fields: [field('title', 'string'), field('year', 'number'), field('tags', 'stringlist')],
  },
  { name: 'author', fields: [field('name', 'string')] },
];

const items: QueryItem[] = [
  {
    id: 'post:a',
    type: 'post',
    fields: { title: 'Alpha', year: 2020, tags: ['graphs'] },
    status: 'published',
  },
  { id: 'post:b', type: 'post', fields: { title: 'Beta', year: 2022, tags: ['web'] }, status: 'draft' },
  { id: 'post:c', type: 'post', fields: { title: 'Gamma', year: 2024, tags: ['graphs', 'web'] } },
  { id: 'author:ann', type: 'author', fields: { name: 'Ann' } },
  { id: 'author:bob', type: 'author', fields: { name: 'Bob' } },
];
const edges = [
  { from: 'author:ann', edge: 'WROTE', to: 'post:a' },
  { from: 'author:ann', edge: 'WROTE', to: 'post:c' },
  { from: 'author:bob', edge: 'WROTE', to: 'post:b' },
  { from: 'post:a', edge: 'CITES', to: 'post:b' },
  { from: 'post:b', edge: 'CITES', to: 'post:c' },
];

/** A reader over the arrays above; `async` answers with promises, as the server's engine does. */
function readerOf(isAsync: boolean, hidden: ReadonlySet<string> = new Set()): GraphQueryReader {
  const wrap = <T>(value: T) => (isAsync ? Promise.resolve(value) : value);
  const visible = items.filter((item) => !hidden.has(item.id));
  return {
    type: (name) => wrap(types.find((t) => t.name === name) ?? null),
    itemsOfType: (type) => wrap(visible.filter((item) => item.type === type)),
    neighbours: (ids, edge, direction) => {
      const out = new Map<string, string[]>();
      for (const e of edges) {
        if (edge !== '*' && e.edge !== edge) continue;
        const [here, there] = direction === 'out' ? [e.from, e.to] : [e.to, e.from];
        if (ids.includes(here)) out.set(here, [...(out.get(here) ?? []), there]);
      }
      return wrap(out);
    },
    items: (ids) =>
      wrap(new Map(visible.filter((item) => ids.includes(item.id)).map((item) => [item.id, item]))),
  };
}

const run = (
  query: GraphQuery,
  values: Record<string, string | number | boolean> = {},
  hidden?: Set<string>,
) => runGraphQuerySync({ query, values, reader: readerOf(false, hidden) });

describe('saved query evaluation', () => {
  it('filters and sorts with the list language, and pages with a total', () => {
    const result = run({ type: 'post', where: 'year >= 2022', sort: '-year', limit: 1 });
    expect(result.items.map((item) => item.id)).toEqual(['post:c']);
    expect(result).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(run({ type: 'post', sort: 'title', offset: 1 }).items.map((item) => item.id)).toEqual([
      'post:b',
      'post:c',
    ]);
    expect(run({ type: 'post', where: "tags contains 'graphs'" }).total).toBe(2);
  });

  it('binds parameters as values, typed by their field, and leaves out conditions of absent optional ones', () => {
    const query: GraphQuery = { type: 'post', where: 'year > $since and tags contains $tag' };
    expect(run(query, { since: 2020, tag: 'web' }).items.map((item) => item.id)).toEqual([
      'post:b',
      'post:c',
    ]);
    expect(run(query, { since: 2022 }).items.map((item) => item.id)).toEqual(['post:c']);
    // a value holding the language's syntax stays one value
    expect(run({ type: 'post', where: 'title == $title' }, { title: "Alpha' or title != '" }).total).toBe(0);
  });

  it('checks run parameters against their declarations', () => {
    const params = {
      since: { type: 'number' as const, required: true },
      draft: { type: 'boolean' as const },
    };
    expect(bindQueryParams({ name: 'q', params, given: { since: '2021', draft: 'true' } })).toEqual({
      since: 2021,
      draft: true,
    });
    expect(() => bindQueryParams({ name: 'q', params, given: {} })).toThrow(/`since` is required/);
    expect(() => bindQueryParams({ name: 'q', params, given: { since: 'soon' } })).toThrow(
      /`since` must be a number, not "soon"/,
    );
    expect(() => bindQueryParams({ name: 'q', params, given: { since: 1, other: 2 } })).toThrow(
      /`other` is not a parameter of the query/,
    );
    expect(bindQueryParams({ name: 'q', params: { n: { type: 'number', default: 3 } }, given: {} })).toEqual({
      n: 3,
    });
  });

  it('follows edges in either direction to a depth, keeping a type with its own where and sort', () => {
    const authors = run({
      type: 'post',
      where: 'year >= 2022',
      follow: [{ edge: 'WROTE', direction: 'in', depth: 1, type: 'author', sort: '-name' }],
    });
    expect(authors.items.map((item) => item.id)).toEqual(['author:bob', 'author:ann']);
    const cited = run({
      type: 'post',
      where: "title == 'Alpha'",
      follow: [{ edge: 'CITES', direction: 'out', depth: 2 }],
    });
    expect(cited.items.map((item) => item.id)).toEqual(['post:b', 'post:c']);
    const both = run({
      type: 'author',
      where: "name == 'Bob'",
      follow: [
        { edge: 'WROTE', direction: 'out', depth: 1 },
        { edge: 'CITES', direction: 'both', depth: 1, type: 'post', where: 'year > 2020' },
      ],
    });
    expect(both.items.map((item) => item.id)).toEqual(['post:c']);
    // an item not visible (unpublished in the build's environment) is not walked through
    const hidden = run(
      { type: 'post', where: "title == 'Alpha'", follow: [{ edge: 'CITES', direction: 'out', depth: 2 }] },
      {},
      new Set(['post:b']),
    );
    expect(hidden.total).toBe(0);
  });

  it('projects rows: id and type with the selected values, or every field and built-in', () => {
    const [row] = run({ type: 'post', where: "title == 'Alpha'", select: ['title', 'slug', 'missing'] }).rows;
    expect(row).toEqual({ id: 'post:a', type: 'post', title: 'Alpha', slug: 'a', missing: null });
    expect(run({ type: 'post', where: "title == 'Beta'" }).rows[0]).toMatchObject({
      id: 'post:b',
      title: 'Beta',
      year: 2022,
      slug: 'b',
      status: 'draft',
    });
  });

  it('answers the same through a reader of promises', async () => {
    const query: GraphQuery = {
      type: 'author',
      follow: [{ edge: 'WROTE', direction: 'out', type: 'post', sort: '-year' }],
      select: ['title'],
    };
    const sync = run(query);
    const viaPromises = await runGraphQuery({ query, values: {}, reader: readerOf(true) });
    expect(viaPromises).toEqual(sync);
    expect(sync.rows.map((row) => row.title)).toEqual(['Gamma', 'Beta', 'Alpha']);
  });

  it('refuses unknown types and fields, and operators a field cannot take, naming the clause', () => {
    expect(() => run({ type: 'nope' })).toThrow(/query: `nope` is not a content type/);
    expect(() => run({ type: 'post', where: 'colour == red' })).toThrow(/`colour` is not a field of post/);
    expect(() => run({ type: 'post', where: 'year contains 2' })).toThrow(/cannot use contains on a number/);
    expect(() =>
      run({
        type: 'post',
        follow: [{ edge: 'WROTE', direction: 'in', depth: 1, type: 'author', where: 'x == 1' }],
      }),
    ).toThrow(/follow\[0\]: `x` is not a field of author/);
    const check = (query: GraphQuery) =>
      driveSync(checkGraphQuery(query, (name) => types.find((t) => t.name === name) ?? null));
    expect(() => check({ type: 'post', where: 'colour == $c' })).toThrow(/`colour` is not a field of post/);
    expect(() => check({ type: 'post', select: ['title', 'nope'] })).toThrow(
      /select: `nope` is not a field of post/,
    );
    expect(() => check({ type: 'post', where: 'year > $since', select: ['title'] })).not.toThrow();
  });
});
