import {
  checkFieldValue,
  contentId,
  deriveSlug,
  type FieldDefinition,
  type StoredContentType,
  searchText,
  type ValueReference,
} from '@trelliscms/core';
import type { GraphNode } from '../engines/port';
import { type FieldPieces, fieldPieces, itemHasher } from './item-hash';
import { emptyBody, piecesJson } from './item-record';
import type { ItemReference } from './item-write';

/*
 * The pure per-record work of an import (no I/O): the compiled record check and what a new
 * item's row is made of (its fields' JSON, content hash and search text). Imported by the
 * import itself (import-records.ts) and by the import's preparing thread (import-worker.ts),
 * which must make the same strings from the same records.
 */

/** A record that passed validation, ready to write. */
export interface PreparedRecord {
  index: number;
  id: string;
  fields: Record<string, unknown>;
  targets: Record<string, string[]>;
  references: ItemReference[];
  /** The stored item the record replaces. */
  existing?: GraphNode;
  /** With `existing`: its current targets of each relationship the record gives, by name. */
  current?: Record<string, string[]>;
}

/** A field value's check that answers true only when the value is valid (false: the general check decides and words the error). */
type FastCheck = (value: unknown, references: ItemReference[]) => boolean;

/** The {@link FastCheck} of one field: the common rules inline, the others through core's checkFieldValue. */
function fastFieldCheck(field: FieldDefinition): FastCheck {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'markdown':
      if (field.regex !== undefined || field.minLength !== undefined) break;
      if (field.maxLength === undefined) return (value) => typeof value === 'string';
      {
        // A string has at most as many characters (code points) as UTF-16 units: within the
        // limit by units is within it by characters; longer ones are counted by the general check.
        const max = field.maxLength;
        return (value) => typeof value === 'string' && value.length <= max;
      }
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return (value) => typeof value === 'boolean';
  }
  return (value, references) => {
    const found: ValueReference[] = [];
    if (checkFieldValue(field, value, found) !== null) return false;
    for (const { field: name, id, kind } of found) references.push({ field: name, id, kind });
    return true;
  };
}

/** As core's validate-fields: what counts as no value. */
const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** Body keys a record reads as something other than a field (core's toContentWrite). */
const RESERVED_KEYS = ['id', 'fields', 'relationships', 'version', 'expectedVersion'];

/**
 * The import's checker of one type, made once per import: for a record whose keys are all
 * fields of the type (no id, relationships or version) and whose values pass the type's
 * rules, the same PreparedRecord as {@link prepare} — the fields in the type's order with
 * defaults applied, empty values dropped as validateFields drops them, the id from the key
 * field — without the per-record sets, maps and issue lists of the general check; null for
 * any other record, which then goes through {@link prepare} (so every error is worded there).
 * Null for a type whose field names clash with the reserved keys or that has a required
 * relationship.
 */
export function compileRecordCheck(
  type: StoredContentType,
): ((record: Record<string, unknown>, index: number) => PreparedRecord | null) | null {
  const names = new Set(type.fields.map((field) => field.name));
  if (RESERVED_KEYS.some((key) => names.has(key))) return null;
  if (type.relationships.some((relationship) => relationship.required)) return null;
  const checks = type.fields.map((field) => ({ field, name: field.name, check: fastFieldCheck(field) }));
  return (record, index) => {
    for (const key in record) if (!names.has(key)) return null;
    const fields: Record<string, unknown> = {};
    const references: ItemReference[] = [];
    for (const { field, name, check } of checks) {
      let value = record[name];
      if (isEmpty(value) && field.default !== undefined) value = field.default;
      if (isEmpty(value)) {
        if (field.required) return null;
        if (value === '' || Array.isArray(value)) fields[name] = value;
        continue;
      }
      if (!check(value, references)) return null;
      fields[name] = value;
    }
    const slug = deriveSlug({ type, fields });
    if (slug === null) return null;
    return { index, id: contentId({ type: type.name, slug }), fields, targets: {}, references };
  };
}

/** Records whose string fields hold at least this many characters have their fields serialized once (writeBatch). */
export const PIECES_FROM_CHARS = 1024;

/** The characters of the string fields of `fields`. */
export function textLength(fields: Record<string, unknown>): number {
  let length = 0;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'string') length += value.length;
  }
  return length;
}

/**
 * The fields' pieces (fieldPieces) when the record has long texts, serialized once for its
 * hash and its stored props; null for short ones, where two native serializations cost less
 * than joining pieces.
 */
export function longFieldPieces(fields: Record<string, unknown>): FieldPieces | null {
  return textLength(fields) >= PIECES_FROM_CHARS ? fieldPieces(fields) : null;
}

/** What a new item's row is made of, but for the batch's bookkeeping (item-record.ts `newItemsJson`). */
export interface NewRowParts {
  /** `JSON.stringify(fields)` (joined from the members' JSON for long records: same text). */
  fieldsJson: string;
  /** The content hash of the fields with the batch's empty body. */
  hash: string;
  /** The search text of the fields. */
  text: string;
}

/**
 * The {@link NewRowParts} of a new item's `fields`, hashed with `hashWithBody` (itemHasher of
 * the batch's empty body), serialized through {@link longFieldPieces}.
 */
export function newRowParts(
  type: StoredContentType,
  fields: Record<string, unknown>,
  hashWithBody: ReturnType<typeof itemHasher>,
): NewRowParts {
  const flat = longFieldPieces(fields);
  return {
    fieldsJson: flat ? piecesJson(flat) : JSON.stringify(fields),
    hash: hashWithBody(fields, flat),
    text: searchText({ type, fields }),
  };
}

/**
 * The parts of one batch's rows made ahead (import-worker.ts): for each record of the range
 * `[start, end)` the compiled check vouches for (see {@link compileRecordCheck}), its index,
 * id and {@link NewRowParts}, with the empty body of `bodyTime`. The import uses a record's
 * parts only when its own check gave the same id.
 */
export interface BatchParts {
  indexes: number[];
  ids: string[];
  fieldsJson: string[];
  hashes: string[];
  texts: string[];
}

/** The {@link BatchParts} of `records[start..end)` (what the preparing thread computes). */
export function batchParts(
  type: StoredContentType,
  check: NonNullable<ReturnType<typeof compileRecordCheck>>,
  records: ReadonlyArray<unknown>,
  start: number,
  end: number,
  bodyTime: number,
): BatchParts {
  const hashWithBody = itemHasher(emptyBody(bodyTime));
  const out: BatchParts = { indexes: [], ids: [], fieldsJson: [], hashes: [], texts: [] };
  for (let index = start; index < end; index += 1) {
    const record = records[index];
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
    const ok = check(record as Record<string, unknown>, index);
    if (ok === null) continue;
    const parts = newRowParts(type, ok.fields, hashWithBody);
    out.indexes.push(index);
    out.ids.push(ok.id);
    out.fieldsJson.push(parts.fieldsJson);
    out.hashes.push(parts.hash);
    out.texts.push(parts.text);
  }
  return out;
}

/** Indexes into the progress array an import shares with its preparing thread (import-worker.ts `StartMessage.progress`). */
export const MAKING = 0;
export const TAKEN = 1;
