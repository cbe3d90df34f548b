import safeRegex from 'safe-regex2';
import type { FieldDefinition } from '../schemas/content-type';

/** The longest regex a field definition may carry. */
export const MAX_REGEX_LENGTH = 500;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const CONTENT_ID = /^[A-Za-z][A-Za-z0-9_-]*:[^\s:/?#][^\s/?#]*$/;
const ASSET_ID = /^asset:[^\s/]+$/;
const IMAGE_URL = /^(https?:\/\/\S+|\/\S*)$/;

const compiled = new Map<string, RegExp>();

/**
 * Compiles a field's `regex` (cached). Throws a `SyntaxError` when it does not compile and a
 * `RangeError` when it could backtrack catastrophically (nested quantifiers, checked with
 * safe-regex2) or is longer than {@link MAX_REGEX_LENGTH}: user patterns run on every write.
 */
export function compileFieldRegex(source: string): RegExp {
  const cached = compiled.get(source);
  if (cached) return cached;
  if (source.length > MAX_REGEX_LENGTH) {
    throw new RangeError(`is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  const regex = new RegExp(source, 'u');
  if (!safeRegex(source)) {
    throw new RangeError('could backtrack catastrophically (nested or too many quantifiers); simplify it');
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(source, regex);
  return regex;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether `value` is a calendar date `YYYY-MM-DD`. */
export function isIsoDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** Whether `value` is an ISO 8601 date-time with a time zone (`Z` or `±hh:mm`). */
export function isIsoDateTime(value: string): boolean {
  const match = DATETIME.exec(value);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second] = match;
  return (
    isCalendarDate(Number(year), Number(month), Number(day)) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second ?? 0) < 60
  );
}

/** Whether `value` has the shape of a full content id `<type>:<slug>`. */
export function isContentIdShape(value: string): boolean {
  return CONTENT_ID.test(value);
}

function lengthRules(field: FieldDefinition, value: string, what: string): string | null {
  // Counting code points copies the string into an array: only when there is a limit to check.
  if (field.minLength === undefined && field.maxLength === undefined) return null;
  const length = [...value].length;
  if (field.minLength !== undefined && length < field.minLength) {
    return `must be at least ${field.minLength} ${what} long (got ${length})`;
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return `must be at most ${field.maxLength} ${what} long (got ${length})`;
  }
  return null;
}

function textRules(field: FieldDefinition, value: string): string | null {
  const length = lengthRules(field, value, 'characters');
  if (length) return length;
  if (field.regex !== undefined && !compileFieldRegex(field.regex).test(value)) {
    return `must match the pattern ${field.regex}`;
  }
  return null;
}

/** What a present value of a field must reference: another item or a media asset. */
export interface ValueReference {
  field: string;
  id: string;
  kind: 'content' | 'asset';
}

/**
 * Checks one present (non-null) value against its field definition. Returns the problem as
 * a message fragment (the caller prefixes the field name), or null when the value is valid;
 * references the value makes (reference and image fields) are pushed to `references` for the
 * caller to check for existence, since core does no I/O.
 *
 * Length bounds count characters for text types and entries for `stringlist`.
 */
export function checkFieldValue(
  field: FieldDefinition,
  value: unknown,
  references: ValueReference[] = [],
): string | null {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'markdown':
      return typeof value === 'string' ? textRules(field, value) : 'must be a string';
    case 'richtext':
      if (typeof value === 'string') return textRules(field, value);
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? null
        : 'must be a string or a rich-text document object';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a finite number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? null : 'must be a date YYYY-MM-DD';
    case 'datetime':
      return typeof value === 'string' && isIsoDateTime(value)
        ? null
        : 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T09:30:00Z';
    case 'enum':
      return typeof value === 'string' && (field.values ?? []).includes(value)
        ? null
        : `must be one of ${(field.values ?? []).join(', ')}`;
    case 'stringlist': {
      if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
        return 'must be an array of strings';
      }
      if (field.minLength !== undefined && value.length < field.minLength) {
        return `must have at least ${field.minLength} entries (got ${value.length})`;
      }
      if (field.maxLength !== undefined && value.length > field.maxLength) {
        return `must have at most ${field.maxLength} entries (got ${value.length})`;
      }
      if (field.regex !== undefined) {
        const regex = compileFieldRegex(field.regex);
        const bad = value.find((entry) => !regex.test(entry));
        if (bad !== undefined) return `entry "${bad}" must match the pattern ${field.regex}`;
      }
      return null;
    }
    case 'image':
      if (typeof value !== 'string') return 'must be an asset id (asset:<id>) or an image URL';
      if (ASSET_ID.test(value)) {
        references.push({ field: field.name, id: value, kind: 'asset' });
        return null;
      }
      return IMAGE_URL.test(value) ? null : 'must be an asset id (asset:<id>) or an image URL';
    case 'reference':
      if (typeof value !== 'string' || !isContentIdShape(value)) {
        return 'must be the full id of an item, <type>:<slug>';
      }
      if (field.target !== undefined && !value.startsWith(`${field.target}:`)) {
        return `must be the id of a ${field.target} item, ${field.target}:<slug>`;
      }
      references.push({ field: field.name, id: value, kind: 'content' });
      return null;
  }
}
