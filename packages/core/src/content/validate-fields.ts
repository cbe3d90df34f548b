import { TrellisError } from '../errors';
import type { ContentType } from '../schemas/content-type';
import { isSingleTarget } from './definitions';
import { checkFieldValue, isContentIdShape, type ValueReference } from './field-value';

/** One problem with an item, naming the field or relationship it is about. */
export interface FieldIssue {
  field: string;
  message: string;
}

export interface ValidatedFields {
  /** The fields to store: defaults applied, nulls dropped. */
  fields: Record<string, unknown>;
  issues: FieldIssue[];
  /** Items and assets the values point at; the caller checks that they exist. */
  references: ValueReference[];
}

function isEmpty(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

/**
 * Validates the complete field set of an item against its type: unknown fields, `required`,
 * `default` (applied when `applyDefaults` and the value is missing), and every type rule of
 * {@link checkFieldValue}. A `null` value means "unset". Uniqueness and the existence of
 * referenced items need the store, so they are left to the caller (`references`).
 */
export function validateFields({
  type,
  fields,
  applyDefaults,
}: {
  type: Pick<ContentType, 'name' | 'fields'>;
  fields: Record<string, unknown>;
  applyDefaults: boolean;
}): ValidatedFields {
  const issues: FieldIssue[] = [];
  const references: ValueReference[] = [];
  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const field of type.fields) {
    known.add(field.name);
    let value = fields[field.name];
    if (isEmpty(value) && applyDefaults && field.default !== undefined) value = field.default;
    if (isEmpty(value)) {
      if (field.required) issues.push({ field: field.name, message: 'is required' });
      if (value === '' || Array.isArray(value)) out[field.name] = value;
      continue;
    }
    const problem = checkFieldValue(field, value, references);
    if (problem) issues.push({ field: field.name, message: problem });
    else out[field.name] = value;
  }
  for (const name of Object.keys(fields)) {
    if (!known.has(name) && fields[name] !== undefined) {
      issues.push({ field: name, message: `is not a field of type ${type.name}` });
    }
  }
  return { fields: out, issues, references };
}

/** The edges an item's relationships ask for, by relationship name. */
export interface ValidatedRelationships {
  /** Target ids by relationship name; an empty array clears the relationship. */
  targets: Record<string, string[]>;
  issues: FieldIssue[];
}

/**
 * Validates `relationships` (`{name: id | id[] | null}`) against the type: the name must be a
 * relationship of the type, targets must be full ids of the relationship's target type, and
 * single-target kinds (`one-to-one`, `many-to-one`) take at most one. With `isCreate`, a
 * `required` relationship must be given; on update, it cannot be cleared. Existence of the
 * targets is left to the caller.
 */
export function validateRelationships({
  type,
  relationships,
  isCreate,
}: {
  type: Pick<ContentType, 'name' | 'relationships'>;
  relationships: Record<string, unknown>;
  isCreate: boolean;
}): ValidatedRelationships {
  const issues: FieldIssue[] = [];
  const targets: Record<string, string[]> = {};
  const byName = new Map((type.relationships ?? []).map((relationship) => [relationship.name, relationship]));
  for (const [name, raw] of Object.entries(relationships)) {
    if (raw === undefined) continue;
    const relationship = byName.get(name);
    if (!relationship) {
      issues.push({ field: name, message: `is not a relationship of type ${type.name}` });
      continue;
    }
    const ids = raw === null ? [] : Array.isArray(raw) ? raw : [raw];
    if (!ids.every((id): id is string => typeof id === 'string')) {
      issues.push({ field: name, message: 'must be an item id or an array of item ids' });
      continue;
    }
    if (isSingleTarget(relationship.kind) && ids.length > 1) {
      issues.push({ field: name, message: `is ${relationship.kind}: give at most one target` });
      continue;
    }
    const wrong = ids.find((id) => !isContentIdShape(id) || !id.startsWith(`${relationship.target}:`));
    if (wrong !== undefined) {
      issues.push({ field: name, message: `"${wrong}" is not the id of a ${relationship.target} item` });
      continue;
    }
    if (relationship.required && ids.length === 0) {
      issues.push({ field: name, message: 'is required' });
      continue;
    }
    targets[name] = [...new Set(ids)];
  }
  if (isCreate) {
    for (const relationship of type.relationships ?? []) {
      if (
        relationship.required &&
        !(relationship.name in targets) &&
        relationships[relationship.name] !== null
      ) {
        issues.push({ field: relationship.name, message: 'is required' });
      }
    }
  }
  return { targets, issues };
}

/** Renders issues as one line: "field `a` is required; field `b` must be a string". */
export function describeIssues(issues: FieldIssue[]): string {
  return issues.map((issue) => `field \`${issue.field}\` ${issue.message}`).join('; ');
}

/** The 400 for invalid item input; the body carries the issues as `issues`. */
export function invalidFieldsError(issues: FieldIssue[]): TrellisError {
  return TrellisError.of('validation_failed', { detail: describeIssues(issues) }, { extra: { issues } });
}
