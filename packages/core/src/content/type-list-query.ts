import { TrellisError } from '../errors/trellis-error';
import type { ContentType, FieldDefinition } from '../schemas/content-type';
import { LIST_BUILT_INS, type SortKey, sortKeys, type WhereCondition } from './list-language';

/** What a name in a list query stands for: one of the type's fields, or a built-in. */
export type ListField = { kind: 'field'; definition: FieldDefinition } | { kind: 'built-in'; name: string };

/** A condition whose value has the type of its field (`year == '2020'` holds the number 2020). */
export interface TypedCondition extends WhereCondition {
  target: ListField;
}

/** A sort key and what its name stands for. */
export interface TypedSortKey extends SortKey {
  target: ListField;
}

/** The workflow statuses an item can have (`status`). */
export const ITEM_STATUSES: readonly string[] = ['draft', 'published'];

/** What a name stands for in the list query of `type`: a field wins over a built-in of the same name. */
export function listField(type: Pick<ContentType, 'fields'>, name: string): ListField | null {
  const definition = type.fields.find((field) => field.name === name);
  if (definition) return { kind: 'field', definition };
  return LIST_BUILT_INS.includes(name) ? { kind: 'built-in', name } : null;
}

type Typed = { value: unknown } | { problem: string };

function asText(value: unknown): Typed {
  if (typeof value === 'string') return { value };
  if (typeof value === 'number') return { value: String(value) };
  return { problem: 'needs text' };
}

function asNumber(value: unknown): Typed {
  if (typeof value === 'number') return { value };
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return { value: Number(value) };
  }
  return { problem: 'needs a number' };
}

function asBoolean(value: unknown): Typed {
  if (typeof value === 'boolean') return { value };
  if (value === 'true' || value === 'false') return { value: value === 'true' };
  return { problem: 'needs true or false' };
}

function oneOf(values: readonly string[], typed: Typed): Typed {
  if ('problem' in typed || values.includes(typed.value as string)) return typed;
  return { problem: `needs one of ${values.join(', ')}` };
}

/** The value of a condition, typed by what its field holds; or what is wrong with it. */
function typeCondition(target: ListField, condition: WhereCondition): Typed {
  const { op, value } = condition;
  const kind = target.kind === 'field' ? target.definition.type : target.name;
  const isEquality = op === '==' || op === '!=';
  if (value === null) return isEquality ? { value: null } : { problem: 'needs a value, not null' };
  switch (kind) {
    case 'number':
      return op === 'contains' ? { problem: 'cannot use contains on a number' } : asNumber(value);
    case 'boolean':
      return isEquality ? asBoolean(value) : { problem: `cannot use ${op} on true/false` };
    case 'stringlist':
      return op === 'contains' ? asText(value) : { problem: 'is a list: use contains (or == null, != null)' };
    case 'enum': {
      const values = target.kind === 'field' ? (target.definition.values ?? []) : [];
      return isEquality ? oneOf(values, asText(value)) : asText(value);
    }
    case 'status':
      return isEquality ? oneOf(ITEM_STATUSES, asText(value)) : asText(value);
    default:
      return asText(value);
  }
}

function known(type: Pick<ContentType, 'name' | 'fields'>): string {
  const fields = type.fields.map((field) => field.name);
  return `fields of ${type.name}: ${fields.length > 0 ? fields.join(', ') : 'none'}; built-ins: ${LIST_BUILT_INS.join(', ')}`;
}

/**
 * Checks a parsed list query against a content type and types its values: every name must be
 * a field of the type or a built-in, every operator must suit what the field holds
 * (`contains` on text or lists, ordering on text and numbers, lists only with `contains`),
 * values are converted to the field's type (`'2020'` for a number field is 2020, `1984` for
 * a text field is `"1984"`), and an `enum` or `status` compared with `==`/`!=` must name one of
 * its values. Lists cannot be sort keys. Throws 400 `invalid_list_query` naming every problem.
 */
export function typeListQuery({
  type,
  where,
  sort,
}: {
  type: Pick<ContentType, 'name' | 'fields'>;
  where: readonly WhereCondition[];
  sort: readonly string[];
}): { where: TypedCondition[]; sort: TypedSortKey[] } {
  const problems: string[] = [];
  let unknownNamed = false;
  const unknownName = (name: string) => {
    problems.push(`\`${name}\` is not a field of ${type.name}`);
    unknownNamed = true;
  };
  const typedWhere: TypedCondition[] = [];
  for (const condition of where) {
    const target = listField(type, condition.field);
    if (!target) {
      unknownName(condition.field);
      continue;
    }
    const typed = typeCondition(target, condition);
    if ('problem' in typed) {
      const shown = condition.value === null ? 'null' : JSON.stringify(condition.value);
      problems.push(`\`${condition.field} ${condition.op} ${shown}\` ${typed.problem}`);
    } else {
      typedWhere.push({ ...condition, value: typed.value, target });
    }
  }
  const typedSort: TypedSortKey[] = [];
  for (const key of sortKeys(sort)) {
    const target = listField(type, key.field);
    if (!target) unknownName(key.field);
    else if (target.kind === 'field' && target.definition.type === 'stringlist') {
      problems.push(`\`${key.field}\` is a list and cannot be a sort key`);
    } else typedSort.push({ ...key, target });
  }
  if (problems.length > 0) {
    const detail = problems.join('; ') + (unknownNamed ? ` (${known(type)})` : '');
    throw TrellisError.of('invalid_list_query', { detail });
  }
  return { where: typedWhere, sort: typedSort };
}
