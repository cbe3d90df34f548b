import { describe, expect, it } from 'vitest';
import { isTrellisError } from '../errors';
import {
  bindParams,
  compareValues,
  conditionHolds,
  isParamRef,
  paramNames,
  parseSort,
  parseWhere,
  sortKeys,
} from './list-language';

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isTrellisError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parseWhere', () => {
  it('parses conditions joined by and, with every kind of value', () => {
    expect(
      parseWhere(
        `featured == true and category == 'news' and rank >= 2.5 and title contains "a b" and x != null and y == nil`,
      ),
    ).toEqual([
      { field: 'featured', op: '==', value: true },
      { field: 'category', op: '==', value: 'news' },
      { field: 'rank', op: '>=', value: 2.5 },
      { field: 'title', op: 'contains', value: 'a b' },
      { field: 'x', op: '!=', value: null },
      { field: 'y', op: '==', value: null },
    ]);
    expect(parseWhere('year<2000')).toEqual([{ field: 'year', op: '<', value: 2000 }]);
    expect(parseWhere('category == news')).toEqual([{ field: 'category', op: '==', value: 'news' }]);
    expect(parseWhere('isbn == 0451524934 and price == 1.50 and n == -3')).toEqual([
      { field: 'isbn', op: '==', value: '0451524934' },
      { field: 'price', op: '==', value: '1.50' },
      { field: 'n', op: '==', value: -3 },
    ]);
    expect(parseWhere('  ')).toEqual([]);
  });

  it('reads a bare field as "is set"', () => {
    expect(parseWhere('featured and cover')).toEqual([
      { field: 'featured', op: '!=', value: null },
      { field: 'cover', op: '!=', value: null },
    ]);
  });

  it('does not split at an `and` inside quotes', () => {
    expect(parseWhere(`title == 'rock and roll' and genre == "a and b"`)).toEqual([
      { field: 'title', op: '==', value: 'rock and roll' },
      { field: 'genre', op: '==', value: 'a and b' },
    ]);
  });

  it('refuses what does not parse, naming the part (400 invalid_list_query)', () => {
    const cases: Array<[string, string]> = [
      ['title == hello world', 'not one value'],
      ["title == 'open", 'unclosed'],
      ['title ==', 'no value'],
      ['featured == true and', 'empty condition'],
      ["titlecontains 'x'", 'not a condition'],
      ['and x == 1', 'not a condition'],
      ['1abc == 2', 'not a condition'],
      ['title ~= 2', 'not a condition'],
      ['a == 1 and  and b == 2', '`and b == 2` is not a condition'],
    ];
    for (const [text, message] of cases) {
      const error = failure(() => parseWhere(text));
      expect(error.code, text).toBe('invalid_list_query');
      expect(error.message, text).toContain(message);
    }
  });
});

describe('parseSort', () => {
  it('keeps the keys as written and splits out their direction', () => {
    expect(parseSort(' -date, title ,')).toEqual(['-date', 'title']);
    expect(sortKeys(['-date', 'title'])).toEqual([
      { field: 'date', descending: true },
      { field: 'title', descending: false },
    ]);
    expect(parseSort(undefined)).toEqual([]);
  });

  it('refuses a key that is not a field name', () => {
    expect(failure(() => parseSort('date desc')).code).toBe('invalid_list_query');
    expect(failure(() => parseSort('--date')).message).toContain('`--date` is not a sort key');
  });
});

describe('conditionHolds', () => {
  it('compares equal values, a number equal to its text, missing equal to null', () => {
    expect(conditionHolds(2020, { op: '==', value: '2020' })).toBe(true);
    expect(conditionHolds('news', { op: '==', value: 'news' })).toBe(true);
    expect(conditionHolds(undefined, { op: '==', value: null })).toBe(true);
    expect(conditionHolds(undefined, { op: '!=', value: 'x' })).toBe(true);
    expect(conditionHolds(1.5, { op: '==', value: '1.50' })).toBe(true);
    expect(conditionHolds('0451524934', { op: '==', value: '0451524934' })).toBe(true);
    expect(conditionHolds(2020, { op: '==', value: '' })).toBe(false);
    expect(conditionHolds(true, { op: '==', value: 'true' })).toBe(false);
  });

  it('orders numbers numerically and text by code point; missing never matches', () => {
    expect(conditionHolds(999, { op: '<', value: 1000 })).toBe(true);
    expect(conditionHolds(999, { op: '<', value: '1000' })).toBe(true);
    expect(conditionHolds('2026-03-01', { op: '>=', value: '2026-03' })).toBe(true);
    expect(conditionHolds(undefined, { op: '<', value: 5 })).toBe(false);
    expect(conditionHolds(null, { op: '>', value: 'a' })).toBe(false);
    expect(conditionHolds(true, { op: '>', value: 0 })).toBe(false);
  });

  it('contains: a case-insensitive substring of text, or an entry of a list', () => {
    expect(conditionHolds('Graph databases', { op: 'contains', value: 'graph' })).toBe(true);
    expect(conditionHolds(['news', 'tech'], { op: 'contains', value: 'tech' })).toBe(true);
    expect(conditionHolds(['news', 'tech'], { op: 'contains', value: 'Tech' })).toBe(false);
    expect(conditionHolds(12, { op: 'contains', value: '1' })).toBe(false);
    expect(conditionHolds(undefined, { op: 'contains', value: 'x' })).toBe(false);
  });
});

describe('compareValues', () => {
  it('puts missing values last, numbers numerically, false before true', () => {
    const values = [3, null, 10, undefined, 2];
    expect([...values].sort(compareValues)).toEqual([2, 3, 10, null, undefined]);
    expect([true, false].sort(compareValues)).toEqual([false, true]);
    expect(['b', '', 'a'].sort(compareValues)).toEqual(['', 'a', 'b']);
  });
});

describe('parameters in a where', () => {
  it('reads an unquoted $name as a parameter only where the caller allows them', () => {
    expect(parseWhere('tag == $tag')).toEqual([{ field: 'tag', op: '==', value: '$tag' }]);
    expect(parseWhere("tag == $tag and title == '$x'", { params: true })).toEqual([
      { field: 'tag', op: '==', value: { $param: 'tag' } },
      { field: 'title', op: '==', value: '$x' },
    ]);
    expect(paramNames(parseWhere('a == $x and b > $y and c < $x', { params: true }))).toEqual(['x', 'y']);
  });

  it('binds values in place of parameters, leaving out conditions whose parameter has none', () => {
    const conditions = parseWhere('a == $x and b > $y and c == 1', { params: true });
    expect(bindParams(conditions, { x: "it's and b == 2" })).toEqual([
      { field: 'a', op: '==', value: "it's and b == 2" },
      { field: 'c', op: '==', value: 1 },
    ]);
    expect(isParamRef(conditions[1]!.value)).toBe(true);
  });
});
