import { compareValues } from '@trelliscms/core/build';
import { slugify } from '../liquid/filters';
import type { SnapshotItem } from '../snapshot/types';
import type { WhereCondition } from './content-source';
import { readField } from './where';

/** One distinct value of a field among some items, and the items having it (in their order). */
export interface ValueGroup {
  value: string | number | boolean;
  /** the value as one URL segment: `slugify(value)` (what `{{ value | slugify }}` gives), else the value URL-encoded */
  slug: string;
  items: SnapshotItem[];
}

/** The URL segment of a value: its slug (as the `slugify` filter gives it), else the value URL-encoded. */
export function valueSlug(value: unknown): string {
  return slugify(value) || encodeURIComponent(String(value));
}

/**
 * The distinct values of `field` among `items` (each entry of a list value counts; missing
 * values, objects and empty text are left out), in value order, each with its items in the
 * order given. `op` is the condition that selects a group's items again: `contains` when some
 * item holds a list there (an entry of the list), else `==`.
 */
export function valueGroups(
  items: readonly SnapshotItem[],
  field: string,
): { groups: ValueGroup[]; op: WhereCondition['op'] } {
  const byValue = new Map<string | number | boolean, SnapshotItem[]>();
  let isList = false;
  for (const item of items) {
    const raw = readField(item, field);
    if (Array.isArray(raw)) isList = true;
    const values = Array.isArray(raw) ? raw : [raw];
    const seen = new Set<unknown>();
    for (const value of values) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
      if (value === '' || seen.has(value)) continue;
      seen.add(value);
      const list = byValue.get(value);
      if (list) list.push(item);
      else byValue.set(value, [item]);
    }
  }
  const groups = [...byValue]
    .map(([value, members]) => ({ value, slug: valueSlug(value), items: members }))
    // values equal to the list language (2020 and '2020') are ordered by kind, so the order is total
    .sort((a, b) => compareValues(a.value, b.value) || (typeof a.value < typeof b.value ? -1 : 1));
  return { groups, op: isList ? 'contains' : '==' };
}
