import { itemSlug } from '@trelliscms/core/build';
import type { SnapshotItem } from '../snapshot/types';
import type { WhereCondition } from './content-source';

/** The value of a field or a built-in (`id`, `slug`, `type`, `status`, `updatedAt`) of an item. */
export function readField(item: SnapshotItem, field: string): unknown {
  switch (field) {
    case 'id':
      return item.id;
    case 'type':
      return item.type;
    case 'slug':
      return itemSlug(item);
    case 'status':
      return item.status;
    case 'updatedAt':
      return item.updatedAt ?? item.fields.updatedAt;
    default:
      return item.fields[field];
  }
}

/** Total order for sorting: nullish last, numbers numerically, everything else as strings. */
export function compareValues(a: unknown, b: unknown): number {
  const aMissing = a === null || a === undefined || a === '';
  const bMissing = b === null || b === undefined || b === '';
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The order of `SnapshotSource.list`: the sort keys (`-` for descending), then the id. */
export function comparator(sort: readonly string[]): (a: SnapshotItem, b: SnapshotItem) => number {
  const keys = sort.map((raw) => {
    const descending = raw.startsWith('-');
    return { field: descending ? raw.slice(1) : raw, descending };
  });
  return (a, b) => {
    for (const { field, descending } of keys) {
      const order = compareValues(readField(a, field), readField(b, field));
      if (order !== 0) return descending ? -order : order;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** More changed items than this: sorting a list again is cheaper than inserting them one by one. */
export const MAX_PATCHED = 256;

/**
 * Inserts `items` into `sorted` (ordered by `compare`), each at its place. False when an item
 * does not rank strictly before its successor (values the comparator cannot rank): `sorted` is
 * then part-patched, and the caller sorts again.
 */
export function insertSorted<T>(sorted: T[], items: T[], compare: (a: T, b: T) => number): boolean {
  for (const item of items.sort(compare)) {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(sorted[mid]!, item) < 0) low = mid + 1;
      else high = mid;
    }
    if (low < sorted.length && compare(item, sorted[low]!) >= 0) return false;
    sorted.splice(low, 0, item);
  }
  return true;
}

/** True when the item satisfies one condition. */
export function matches(item: SnapshotItem, condition: WhereCondition): boolean {
  const actual = readField(item, condition.field);
  const expected = condition.value;
  switch (condition.op) {
    case '==':
      return looseEqual(actual, expected);
    case '!=':
      return !looseEqual(actual, expected);
    case 'contains':
      if (Array.isArray(actual)) return actual.some((entry) => looseEqual(entry, expected));
      return typeof actual === 'string' && actual.includes(String(expected));
    default: {
      if (actual === null || actual === undefined) return false;
      const order = compareValues(actual, expected);
      if (condition.op === '>') return order > 0;
      if (condition.op === '>=') return order >= 0;
      if (condition.op === '<') return order < 0;
      return order <= 0;
    }
  }
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeof a === 'number' || typeof b === 'number') return String(a) === String(b);
  return false;
}

/** Parses `featured == true and category == 'news'` into conditions; `value` is parsed as JSON-ish literal. */
export function parseWhere(text: string): WhereCondition[] {
  const conditions: WhereCondition[] = [];
  for (const part of text.split(/\s+and\s+/)) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const match = /^([A-Za-z_][\w.-]*)\s*(==|!=|>=|<=|>|<|\bcontains\b)\s*(.+)$/.exec(trimmed);
    if (!match) {
      conditions.push({ field: trimmed, op: '!=', value: null });
      continue;
    }
    conditions.push({
      field: match[1]!,
      op: match[2] as WhereCondition['op'],
      value: parseLiteral(match[3]!.trim()),
    });
  }
  return conditions;
}

function parseLiteral(text: string): unknown {
  if (/^'.*'$/s.test(text)) return text.slice(1, -1);
  if (/^".*"$/s.test(text)) return text.slice(1, -1);
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null' || text === 'nil') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Parses `-date,title` into sort keys. */
export function parseSort(text: string | undefined | null): string[] {
  if (!text) return [];
  return text
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
}
