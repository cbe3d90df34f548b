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

/**
 * The canonical JSON of an item's fields. The usual fields object is flat (JSON primitives and
 * lists of them): then the native JSON.stringify with the keys sorted as its property list
 * writes the same string as core's canonicalJson (a property list orders the keys and only
 * filters nested objects, of which there are none; undefined members are dropped by both) at
 * a fraction of the cost. Anything else goes through canonicalJson.
 */
function fieldsJson(fields: Record<string, unknown>): string {
  const keys = Object.keys(fields);
  for (const key of keys) {
    const value = fields[key];
    if (isPlainScalar(value)) continue;
    if (Array.isArray(value) && value.every(isPlainScalar)) continue;
    return canonicalJson(fields);
  }
  return JSON.stringify(fields, keys.sort());
}

/** The canonical JSON of a body as a member of `{body, fields}` ("" when undefined drops it). */
function bodyMember(body: unknown): string {
  return body === undefined ? '' : `"body":${canonicalJson(body)},`;
}

/** `sha256:<hex>` of the canonical JSON `{"body":…,"fields":…}`, given its body member. */
function hashOf(fields: Record<string, unknown>, body: string): string {
  return `sha256:${hash('sha256', `{${body}"fields":${fieldsJson(fields)}}`, 'hex')}`;
}

/**
 * The content hash of an item version: sha256 of the canonical JSON of its fields and body,
 * the same string as core's `contentHash({fields, body})`, computed with Node's native sha256
 * (core's portable one costs several times more on bulk imports).
 */
export function itemHash(fields: Record<string, unknown>, body: unknown): string {
  return hashOf(fields, bodyMember(body));
}

/**
 * {@link itemHash} for many items that share one body (e.g. the empty body of every new item
 * of an import batch): the body is written once.
 */
export function itemHasher(body: unknown): (fields: Record<string, unknown>) => string {
  const member = bodyMember(body);
  return (fields) => hashOf(fields, member);
}
