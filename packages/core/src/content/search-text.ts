import type { ContentType } from '../schemas/content-type';
import { TEXT_FIELD_TYPES } from './definitions';

/**
 * What full-text search (`q`) finds an item by: the values of its type's text fields
 * (`string`, `text`, `markdown`, `richtext`, and each entry of a `stringlist`), one per line,
 * in the type's field order. Bookkeeping (status, ids, hashes, who wrote it) and the other
 * field types (numbers, dates, enums, references, images) are not searchable, so `q=draft`
 * finds items whose text says "draft", not every draft. Strings nested in a value (a rich
 * text document stored as JSON) are included.
 */
export function searchText({
  type,
  fields,
}: {
  type: Pick<ContentType, 'fields'>;
  fields: Record<string, unknown>;
}): string {
  const parts: string[] = [];
  for (const field of type.fields) {
    if (TEXT_FIELD_TYPES.has(field.type)) collectStrings(fields[field.name], parts);
  }
  return parts.join('\n');
}

function collectStrings(value: unknown, parts: string[]): void {
  if (typeof value === 'string') {
    if (value !== '') parts.push(value);
  } else if (Array.isArray(value)) {
    for (const entry of value) collectStrings(entry, parts);
  } else if (typeof value === 'object' && value !== null) {
    for (const key in value) collectStrings((value as Record<string, unknown>)[key], parts);
  }
}
