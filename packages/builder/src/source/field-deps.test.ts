import { hash } from 'node:crypto';
import { canonicalJson } from '@trelliscms/core/build';
import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { dependencyReader } from '../incremental/dependency-reader';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import type { TraverseQuery } from './content-source';
import {
  type ItemView,
  isPartialDep,
  partialDep,
  sortedKeys,
  type ViewReads,
  viewEntries,
  viewValue,
} from './field-deps';
import { SnapshotSource } from './snapshot-source';
import { type QuerySpec, queryKey, TrackingReader, traverseKey } from './tracking-reader';

function snapshotOf(items: SnapshotItem[]): Snapshot {
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: { id: 's', name: 'S' },
    types: [{ name: 'post', fields: [{ name: 'title', type: 'string' }] }],
    items,
    edges: [],
    templates: [],
  } as Snapshot;
}

const post = (fields: Record<string, unknown>): SnapshotItem => ({ id: 'post:a', type: 'post', fields });
const urls = new Map([['post:a', '/a/']]);

/** What a page that runs `read` on the view of post:a records, and whether a reader over `after` finds it changed. */
function record(read: (view: ItemView) => unknown): string {
  const source = new SnapshotSource({ snapshot: snapshotOf([post({ title: 'T', body: 'B' })]) });
  const reader = new TrackingReader({ source, urls });
  reader.begin();
  read(reader.item('post:a')!);
  return reader.collect().items['post:a']!;
}

function changedBy(recorded: string, fields: Record<string, unknown>): boolean {
  const source = new SnapshotSource({ snapshot: snapshotOf([post(fields)]) });
  const reader = dependencyReader({
    source,
    urls,
    templateHashes: new Map(),
    lists: null,
    graphUnchanged: true,
  });
  return reader.itemHash('post:a', recorded) !== recorded;
}

describe('field-level item dependencies', () => {
  it('records the keys a page read, and only a change to those changes the dependency', () => {
    const recorded = record((view) => `${viewValue(view, 'title')} ${viewValue(view, 'url')}`);
    expect(isPartialDep(recorded)).toBe(true);
    expect(recorded.endsWith('["title","url"]')).toBe(true);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(false);
    expect(changedBy(recorded, { title: 'T2', body: 'B' })).toBe(true);
  });

  it('records a key the item lacks (liquidjs checks own keys first): its appearance is a change', () => {
    const recorded = record((view) => viewValue(view, 'subtitle'));
    expect(changedBy(recorded, { title: 'T', body: 'B' })).toBe(false);
    expect(changedBy(recorded, { title: 'T', body: 'B', subtitle: 'S' })).toBe(true);
  });

  it('records an item read without a key by its existence', () => {
    const recorded = record(() => null);
    expect(recorded.endsWith(':[]')).toBe(true);
    expect(changedBy(recorded, { title: 'other', body: 'other' })).toBe(false);
  });

  const liquid = new Liquid({ ownPropertyOnly: true });
  const render = (template: string) => (view: ItemView) =>
    liquid.parseAndRenderSync(template, { post: view });

  it('records what a template reads through liquidjs, and renders as a plain object would', () => {
    const plain = liquid.parseAndRenderSync(
      '{{ post.title }}|{{ post.url }}|{{ post.missing }}|{{ post.size }}',
      {
        post: { title: 'T', url: '/a/', x: 1 },
      },
    );
    expect(plain).toBe('T|/a/||3');
    let out = '';
    const recorded = record((view) => {
      out = render('{{ post.title }}|{{ post.url }}|{{ post.missing }}')(view);
    });
    expect(out).toBe('T|/a/|');
    expect(recorded.endsWith('["missing","title","url"]')).toBe(true);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(false);
    expect(changedBy(recorded, { title: 'T', body: 'B', missing: 'now here' })).toBe(true);
  });

  it.each([
    ['`| json`', render('{{ post | json }}')],
    ['`post.size`', render('{{ post.size }}')],
    ['a for loop over the item', render('{% for pair in post %}{{ pair[0] }}{% endfor %}')],
    ['viewEntries', (view: ItemView) => viewEntries(view)],
  ])('counts %s as reading every field', (_name, read) => {
    const recorded = record(read);
    expect(isPartialDep(recorded)).toBe(false);
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(true);
  });

  it('counts `fields` (the whole field object) as reading every field', () => {
    const recorded = record(render('{{ post.fields.title }}'));
    expect(changedBy(recorded, { title: 'T', body: 'another body' })).toBe(true);
  });

  it('reaches no prototype: inherited names read as missing keys, and the view shows as a plain object', () => {
    let out = '';
    record((view) => {
      out = render(
        '{{ post.constructor }}|{{ post.__proto__ }}|{{ post.toString }}|{{ post.hasOwnProperty }}|{{ post.__proto__.constructor }}|{{ post }}',
      )(view);
    });
    expect(out).toBe('|||||[object Object]');
  });

  it('renders a dump and a key count as a plain object would', () => {
    let out = '';
    record((view) => {
      out = render('{{ post | json }} {{ post.size }} {{ post.id }}')(view);
    });
    const parsed = JSON.parse(out.slice(0, out.lastIndexOf('}') + 1)) as Record<string, unknown>;
    expect(parsed).toMatchObject({ id: 'post:a', title: 'T', body: 'B', url: '/a/', slug: 'a' });
    expect(out.endsWith(` ${Object.keys(parsed).length} post:a`)).toBe(true);
  });
});

describe('traverseKey', () => {
  it('is the JSON key of the query, for the shape {% traverse %} gives and any other', () => {
    const texts = [
      'a',
      'post:1',
      'with "quotes" and \\ backslash',
      'line\nbreak\u2028',
      'ünï ✓',
      '',
      '\u0000\u001f',
    ];
    const queries: unknown[] = [];
    for (const from of texts)
      for (const edge of texts.slice(0, 4))
        queries.push({ from, edge, direction: 'out', depth: 1, limit: 5 });
    queries.push(
      { from: 'a', edge: 'B', direction: 'in', depth: -0, limit: 1001 },
      { from: 'a', edge: 'B', direction: 'in', depth: 1.5, limit: 1 },
      { from: 'a', edge: 'B', direction: 'both', depth: 1, limit: Number.MAX_SAFE_INTEGER + 2 },
      { edge: 'B', from: 'a', direction: 'out', depth: 1, limit: 5 },
      { from: 'a', edge: 'B', direction: 'out', depth: 1 },
      { from: 'a', edge: 'B', direction: 'out', depth: 1, limit: 5, extra: true },
      { from: 1, edge: 'B', direction: 'out', depth: 1, limit: 5 },
    );
    for (const query of queries)
      expect(traverseKey(query as TraverseQuery)).toBe(queryKey({ kind: 'traverse', query } as QuerySpec));
  });
});

describe('sortedKeys', () => {
  it('gives the keys sorted and as JSON, for sets met before by this view, by other views or never', () => {
    const seed = Number(process.env.TEST_SEED ?? Date.now() % 100_000);
    console.log(`sortedKeys: seed ${seed} (TEST_SEED=${seed} repeats it)`);
    let state = seed;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const pool = [
      'title',
      'Title',
      'date',
      'url',
      'body',
      'a',
      'ab',
      'b',
      '',
      '10',
      '9',
      'é',
      'z\u00e9',
      '\ud83d\ude00',
      '__proto__',
      'x"y',
    ];
    const views: ViewReads[] = Array.from({ length: 12 }, () => ({
      item: { id: 'i', type: 't', fields: {} },
      epoch: 0,
      keys: new Set<string>(),
      all: false,
    }));
    for (let round = 0; round < 2_000; round++) {
      const view = Math.floor(random() * views.length);
      const reads = views[view]!;
      reads.keys.clear();
      // few sets most of the time (shared across views), any set now and then
      const size = 1 + Math.floor(random() * (round % 5 === 0 ? pool.length : 4));
      const from = round % 5 === 0 ? pool.length : 6;
      while (reads.keys.size < size) reads.keys.add(pool[Math.floor(random() * from)]!);
      const expected = [...reads.keys].sort();
      const sorted = sortedKeys(reads);
      expect(sorted.keys, `seed ${seed}, round ${round}`).toEqual(expected);
      expect(sorted.json).toBe(JSON.stringify(expected));
      // a dependency value kept with a set stays with this view's set only
      if (sorted.dep !== undefined) expect(sorted.dep).toBe(`view ${view}: ${sorted.json}`);
      sorted.dep = `view ${view}: ${sorted.json}`;
    }
  });
});

describe('partialDep', () => {
  it('hashes each value read as its canonical JSON (texts, numbers, booleans, null, objects, missing keys)', () => {
    const fields: Record<string, unknown> = {
      text: 'with "quotes", \\ and \n, \u2028, ü, \ud83d\ude00 and a lone \ud800',
      empty: '',
      zero: 0,
      negativeZero: -0,
      big: 1e21,
      small: 5e-7,
      fraction: -12.5,
      yes: true,
      no: false,
      nothing: null,
      list: [1, 'a', null, undefined, { b: 2, a: 1 }],
      object: { z: 1, a: { y: [true], x: null }, skipped: undefined },
    };
    const item: SnapshotItem = { id: 'post:x', type: 'post', fields };
    const keys = [...Object.keys(fields), 'absent'].sort();
    let text = item.id;
    for (const key of keys) {
      const value = fields[key];
      text += `\n${key}\n${value === undefined ? 'u' : `j${canonicalJson(value)}`}`;
    }
    const json = JSON.stringify(keys);
    expect(partialDep(item, keys, json, new Map(), [])).toBe(`f:${hash('sha1', text, 'base64url')}:${json}`);
    for (const key of keys) {
      const one = fields[key];
      const expected = `${item.id}\n${key}\n${one === undefined ? 'u' : `j${canonicalJson(one)}`}`;
      expect(partialDep(item, [key], `["${key}"]`, new Map(), [])).toBe(
        `f:${hash('sha1', expected, 'base64url')}:["${key}"]`,
      );
    }
  });

  it('refuses a value canonical JSON refuses (a number that is not finite)', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const item: SnapshotItem = { id: 'post:x', type: 'post', fields: { n: value } };
      expect(() => partialDep(item, ['n'], '["n"]', new Map(), [])).toThrow(/canonicalJson/);
    }
  });
});
