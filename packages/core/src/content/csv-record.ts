import type { ContentType, FieldDefinition } from '../schemas/content-type';
import { isSingleTarget } from './definitions';

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);
/** The separator of several values in one cell (a `stringlist`, a many-target relationship). */
export const CSV_LIST_SEPARATOR = '|';

function listOf(cell: string): string[] {
  if (cell.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(cell);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // Not JSON: a list separated by `|`.
    }
  }
  return cell
    .split(CSV_LIST_SEPARATOR)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * One CSV cell as the value of `field`, converted by the field's declared type, never by how
 * the cell looks: text-like, `enum`, `date`, `datetime`, `image` and `reference` fields keep
 * the text as it is (an ISBN `0451524934` or a title `1984` stays a string); `number` takes a
 * decimal number (`-12.5`, `1e3`); `boolean` takes `true`/`false`, `yes`/`no` or `1`/`0` (any
 * case); `stringlist` takes a JSON array or values separated by `|`. A cell a number or boolean
 * field cannot take stays text, so the field's validation names the problem.
 */
export function fieldValueFromCell(field: Pick<FieldDefinition, 'type'>, cell: string): unknown {
  switch (field.type) {
    case 'number': {
      const text = cell.trim();
      return NUMBER.test(text) ? Number(text) : cell;
    }
    case 'boolean': {
      const text = cell.trim().toLowerCase();
      if (TRUE.has(text)) return true;
      if (FALSE.has(text)) return false;
      return cell;
    }
    case 'stringlist':
      return listOf(cell.trim());
    default:
      return cell;
  }
}

/**
 * A record of `type` (the body of one POST /api/import/json record) from one CSV row, `cells`
 * by column name. Empty cells are left out. A column named after a field takes the value
 * {@link fieldValueFromCell} gives; `id` is the item id; a column named after a relationship
 * (or `relationships.<name>`) gives its target id, or ids separated by `|` for a
 * many-target kind. Any other column is passed on as text (the import then names it as not a
 * field of the type).
 */
export function recordFromCsvRow({
  type,
  cells,
}: {
  type: Pick<ContentType, 'fields' | 'relationships'>;
  cells: Record<string, string>;
}): Record<string, unknown> {
  const fields = new Map(type.fields.map((field) => [field.name, field]));
  const relationships = new Map(
    (type.relationships ?? []).map((relationship) => [relationship.name, relationship]),
  );
  const record: Record<string, unknown> = {};
  const related: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(cells)) {
    if (cell === '') continue;
    const field = fields.get(column);
    if (field) {
      record[column] = fieldValueFromCell(field, cell);
      continue;
    }
    const name = column.startsWith('relationships.') ? column.slice('relationships.'.length) : column;
    const relationship = relationships.get(name);
    if (relationship) {
      related[name] = isSingleTarget(relationship.kind) ? cell.trim() : listOf(cell.trim());
      continue;
    }
    record[column] = cell;
  }
  if (Object.keys(related).length > 0) record.relationships = related;
  return record;
}
