import { hash } from 'node:crypto';
import { canonicalJson } from '@trelliscms/core';

/** Whether JSON.stringify writes `value` as canonicalJson does: a JSON primitive (not a non-finite number). */
function isPlainScalar(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return value === null;
  }
}

/** The JSON of each member of a flat fields object, in the object's key order (see {@link fieldPieces}). */
export type FieldPieces = ReadonlyArray<readonly [key: string, json: string]>;

/**
 * Each member's JSON of a flat fields object (JSON primitives and lists of them: the usual
 * case), in the object's key order, undefined members left out; null when the object is not
 * flat. From these pieces both the canonical JSON (keys sorted, for the content hash) and the
 * stored props (keys in order, `itemPropsJson`) are put together, so a 2.5 KB body is
 * serialized once instead of twice. (For small records the two native serializations cost
 * less than joining pieces: the import takes pieces only for records with long texts.)
 */
export function fieldPieces(fields: Record<string, unknown>): FieldPieces | null {
  const pieces: Array<readonly [string, string]> = [];
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (!isPlainScalar(value) && !(Array.isArray(value) && value.every(isPlainScalar))) return null;
    if (value !== undefined)
      pieces.push([key, typeof value === 'string' ? stringJson(value) : JSON.stringify(value)]);
  }
  return pieces;
}

/** Strings shorter than this go to JSON.stringify as they are (the scans below cost more there). */
const LONG_STRING = 256;
/**
 * A character JSON.stringify writes as `\uXXXX` (control characters but tab, line feed and
 * carriage return; any surrogate, so a lone one is written as JSON.stringify writes it).
 */
const ESCAPED_AS_CODE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(value)` for a string. A long text such as a markdown body (line feeds,
 * quotes) is written by replacing the five characters JSON escapes by a backslash and a
 * letter: in Node 20 that costs about half of what JSON.stringify spends on a 2.5 KB body
 * (docs/benchmarks.md, round 9). A string holding any other character JSON escapes (other
 * control characters, surrogates) goes to JSON.stringify, so the text is always the same.
 */
export function stringJson(value: string): string {
  if (value.length < LONG_STRING || ESCAPED_AS_CODE.test(value)) return JSON.stringify(value);
  let out = value;
  // the backslash first, so the backslashes the later steps add are not doubled
  if (out.includes('\\')) out = out.replaceAll('\\', '\\\\');
  if (out.includes('"')) out = out.replaceAll('"', '\\"');
  if (out.includes('\n')) out = out.replaceAll('\n', '\\n');
  if (out.includes('\r')) out = out.replaceAll('\r', '\\r');
  if (out.includes('\t')) out = out.replaceAll('\t', '\\t');
  return `"${out}"`;
}

/**
 * The canonical JSON of an item's fields. The usual fields object is flat (JSON primitives and
 * lists of them): then the native JSON.stringify with the keys sorted as its property list
 * writes the same string as core's canonicalJson (a property list orders the keys and only
 * filters nested objects, of which there are none; undefined members are dropped by both) at
 * a fraction of the cost; given the members' JSON (`pieces`), they are joined in that order
 * instead. Anything else goes through canonicalJson.
 */
function fieldsJson(fields: Record<string, unknown>, pieces?: FieldPieces | null): string {
  if (pieces) {
    const sorted = [...pieces].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let out = '{';
    for (let i = 0; i < sorted.length; i++) {
      const [key, json] = sorted[i]!;
      out += `${i === 0 ? '' : ','}${keyJson(key)}:${json}`;
    }
    return `${out}}`;
  }
  const keys = Object.keys(fields);
  for (const key of keys) {
    const value = fields[key];
    if (isPlainScalar(value)) continue;
    if (Array.isArray(value) && value.every(isPlainScalar)) continue;
    return canonicalJson(fields);
  }
  return JSON.stringify(fields, keys.sort());
}

/** Field names as JSON strings, remembered: the same few names come with every record. */
const keyTexts = new Map<string, string>();

/** `JSON.stringify(key)`, remembered for the first 10,000 names. */
export function keyJson(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (keyTexts.size < 10_000) keyTexts.set(key, text);
  }
  return text;
}

/** The canonical JSON of a body as a member of `{body, fields}` ("" when undefined drops it). */
function bodyMember(body: unknown): string {
  return body === undefined ? '' : `"body":${canonicalJson(body)},`;
}

/** `sha256:<hex>` of the canonical JSON `{"body":…,"fields":…}`, given its body member. */
function hashOf(fields: Record<string, unknown>, body: string, pieces?: FieldPieces | null): string {
  return `sha256:${hash('sha256', `{${body}"fields":${fieldsJson(fields, pieces)}}`, 'hex')}`;
}

/**
 * The content hash of an item version: sha256 of the canonical JSON of its fields and body,
 * the same string as core's `contentHash({fields, body})`, computed with Node's native sha256
 * (core's portable one costs several times more on bulk imports).
 */
export function itemHash(
  fields: Record<string, unknown>,
  body: unknown,
  pieces?: FieldPieces | null,
): string {
  return hashOf(fields, bodyMember(body), pieces);
}

/**
 * {@link itemHash} for many items that share one body (e.g. the empty body of every new item
 * of an import batch): the body is written once.
 */
export function itemHasher(
  body: unknown,
): (fields: Record<string, unknown>, pieces?: FieldPieces | null) => string {
  const member = bodyMember(body);
  return (fields, pieces) => hashOf(fields, member, pieces);
}
