import { canonicalJson } from '../hash';
import type { ContentType } from '../schemas/content-type';
import { validateFields } from './validate-fields';

/** Stored items that a changed content type would make invalid, for one field. */
export interface TypeChangeConflict {
  field: string;
  /** How many stored items fail. */
  count: number;
  /** One of them, to look at. */
  exampleId: string;
  /** What is wrong with the example. */
  message: string;
}

/**
 * Checks stored items against a changed type definition, without changing them: every rule
 * of {@link validateFields} (defaults are not applied: stored items are never rewritten) plus
 * `unique` (duplicates among the items). Returns one conflict per field, most items first;
 * empty when the change is safe.
 */
export function findTypeChangeConflicts({
  type,
  items,
}: {
  type: Pick<ContentType, 'name' | 'fields'>;
  items: Array<{ id: string; fields: Record<string, unknown> }>;
}): TypeChangeConflict[] {
  const byField = new Map<string, TypeChangeConflict>();
  const add = (field: string, id: string, message: string) => {
    const conflict = byField.get(field);
    if (conflict) conflict.count += 1;
    else byField.set(field, { field, count: 1, exampleId: id, message });
  };
  const uniqueFields = type.fields.filter((field) => field.unique);
  const seen = new Map<string, Set<string>>(uniqueFields.map((field) => [field.name, new Set()]));
  for (const item of items) {
    for (const issue of validateFields({ type, fields: item.fields, applyDefaults: false }).issues) {
      add(issue.field, item.id, issue.message);
    }
    for (const field of uniqueFields) {
      const value = item.fields[field.name];
      if (value === undefined || value === null) continue;
      const key = canonicalJson(value);
      const values = seen.get(field.name)!;
      if (values.has(key)) add(field.name, item.id, 'must be unique, but another item has the same value');
      values.add(key);
    }
  }
  return [...byField.values()].sort((a, b) => b.count - a.count);
}
