import type { ContentType, FieldDefinition, RelationshipDefinition } from '../schemas/content-type';
import {
  RESERVED_FIELD_NAMES,
  RESERVED_NODE_LABELS,
  RESERVED_TYPE_NAMES,
  type StoredContentType,
  TEXT_FIELD_TYPES,
} from './definitions';
import { checkFieldValue, compileFieldRegex } from './field-value';
import type { FieldIssue } from './validate-fields';

const PLACEHOLDER = /\{([^{}]*)\}/g;

export interface TypeDefinitionResult {
  /** The definition to store; meaningful only when `issues` is empty. */
  definition: StoredContentType;
  issues: FieldIssue[];
}

function checkField(
  field: FieldDefinition,
  at: string,
  known: { typeNames: ReadonlySet<string>; self: string },
  issues: FieldIssue[],
): void {
  const before = issues.length;
  if (RESERVED_FIELD_NAMES.includes(field.name)) {
    issues.push({ field: at, message: `name \`${field.name}\` is reserved` });
  }
  if (field.type === 'enum' && (!Array.isArray(field.values) || field.values.length === 0)) {
    issues.push({ field: at, message: 'is an enum: give its allowed `values`' });
  } else if (field.type !== 'enum' && field.values !== undefined) {
    issues.push({ field: at, message: '`values` applies to enum fields only' });
  }
  const isText = TEXT_FIELD_TYPES.has(field.type);
  for (const rule of ['minLength', 'maxLength', 'regex'] as const) {
    if (field[rule] !== undefined && !isText) {
      issues.push({ field: at, message: `\`${rule}\` applies to text and stringlist fields only` });
    }
  }
  if (field.minLength !== undefined && field.maxLength !== undefined && field.minLength > field.maxLength) {
    issues.push({ field: at, message: '`minLength` is greater than `maxLength`' });
  }
  if (field.regex !== undefined && isText) {
    try {
      compileFieldRegex(field.regex);
    } catch (error) {
      const reason = error instanceof SyntaxError ? 'does not compile' : (error as Error).message;
      issues.push({ field: at, message: `\`regex\` ${reason}` });
    }
  }
  if (field.target !== undefined) {
    if (field.type !== 'reference')
      issues.push({ field: at, message: '`target` applies to reference fields only' });
    else if (field.target !== known.self && !known.typeNames.has(field.target)) {
      issues.push({ field: at, message: `\`target\` ${field.target} is not a content type of this site` });
    }
  }
  if (field.default !== undefined && field.default !== null && issues.length === before) {
    const problem = checkFieldValue(field, field.default, []);
    if (problem) issues.push({ field: at, message: `\`default\` ${problem}` });
  }
}

function checkRelationship(
  relationship: RelationshipDefinition,
  at: string,
  known: { typeNames: ReadonlySet<string>; self: string },
  issues: FieldIssue[],
): void {
  if (RESERVED_FIELD_NAMES.includes(relationship.name)) {
    issues.push({ field: at, message: `name \`${relationship.name}\` is reserved` });
  }
  if (!/^[A-Z][A-Z0-9_]*$/.test(relationship.edgeLabel)) {
    issues.push({ field: at, message: '`edgeLabel` must be an uppercase identifier such as ACTED_IN' });
  }
  if (relationship.target !== known.self && !known.typeNames.has(relationship.target)) {
    issues.push({
      field: at,
      message: `\`target\` ${relationship.target} is not a content type of this site`,
    });
  }
}

function checkRoutePattern(pattern: string, fieldNames: Set<string>, issues: FieldIssue[]): void {
  for (const match of pattern.matchAll(PLACEHOLDER)) {
    const token = match[1] ?? '';
    // `{locale}`: one page per locale of the site (docs/locales.md)
    if (token === 'slug' || token === 'locale' || token.startsWith('parent.') || fieldNames.has(token))
      continue;
    issues.push({ field: 'routePattern', message: `placeholder {${token}} names no field of the type` });
  }
}

/**
 * The rules of a content type definition that its schema cannot check alone (the schema
 * checks shapes): reserved type names, field names and node labels, `keyField` names a field, `values`
 * only on enums, length and regex rules only on text fields, a `regex` that compiles and
 * cannot backtrack catastrophically (it runs on every write), a `default` that passes its
 * own field, relationship and reference `target`s that name a type of the site (`typeNames`;
 * a type may point at itself), uppercase `edgeLabel`s and route placeholders that name fields.
 *
 * Returns the definition normalised for storage: `relationships` `[]` and `routePattern`
 * null when absent, and `emitPages` resolved (`emitPages` wins over `listingOnly`; neither
 * means true).
 */
export function validateTypeDefinition({
  input,
  typeNames,
}: {
  input: ContentType;
  typeNames: ReadonlySet<string>;
}): TypeDefinitionResult {
  const issues: FieldIssue[] = [];
  const known = { typeNames, self: input.name };
  if (RESERVED_TYPE_NAMES.includes(input.name.toLowerCase())) {
    issues.push({ field: 'name', message: `\`${input.name}\` is reserved` });
  }
  if (RESERVED_NODE_LABELS.includes(input.nodeLabel)) {
    issues.push({ field: 'nodeLabel', message: `\`${input.nodeLabel}\` is reserved` });
  }
  const fieldNames = new Set(input.fields.map((field) => field.name));
  input.fields.forEach((field, index) => {
    checkField(field, `fields[${index}] (${field.name})`, known, issues);
  });
  if (!fieldNames.has(input.keyField)) {
    issues.push({ field: 'keyField', message: `\`${input.keyField}\` names no field of the type` });
  }
  const relationships = input.relationships ?? [];
  relationships.forEach((relationship, index) => {
    checkRelationship(relationship, `relationships[${index}] (${relationship.name})`, known, issues);
  });
  const routePattern = input.routePattern ?? null;
  if (routePattern !== null) checkRoutePattern(routePattern, fieldNames, issues);
  const definition: StoredContentType = {
    ...input,
    relationships,
    routePattern,
    emitPages: input.emitPages ?? input.listingOnly !== true,
  };
  return { definition, issues };
}
