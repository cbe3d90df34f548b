import { hash } from 'node:crypto';
import { canonicalJson, TrellisError } from '@trelliscms/core';

/**
 * Entity tags (ETags) of the resources the API serves, and the check of an `If-Match`
 * precondition against them. A resource with a version counter (content items, templates) is
 * tagged `"<version>"`; any other is tagged by a hash of its stored state, so any change gives
 * a new tag. The HTTP side (reading the headers, sending the tag, 304) is `http/etag.ts`.
 */

/** What an `If-Match` header asks of the current state: that it exists (`*`), or has one of these tags. */
export type Precondition = { kind: 'any' } | { kind: 'tags'; tags: string[] };

/** The tag of a version: `"3"`. */
export function versionTag(version: number): string {
  return `"${version}"`;
}

/** The tag of a JSON value: a hash of its canonical JSON (key order does not matter). */
export function valueTag(value: unknown): string {
  return `"${hash('sha256', canonicalJson(value), 'base64url').slice(0, 27)}"`;
}

/** The tag of a serialized body: a hash of its bytes. */
export function bytesTag(body: string | Buffer): string {
  // one-shot hash: no Hash object per answer (the same digest as createHash)
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

/**
 * Throws 409 `version_conflict` when a precondition does not hold: `*` needs the resource to
 * exist (`current` not null), a list of tags needs its current tag among them. The error
 * carries the current tag in its `ETag` header and `etag` field, so the caller can read again
 * and retry. No precondition always holds.
 */
export function checkPrecondition({
  precondition,
  current,
  resource,
}: {
  precondition: Precondition | undefined;
  current: string | null;
  resource: string;
}): void {
  if (precondition === undefined) return;
  if (current !== null && (precondition.kind === 'any' || precondition.tags.includes(current))) return;
  const expected = precondition.kind === 'any' ? 'it to exist' : `ETag ${precondition.tags.join(' or ')}`;
  throw TrellisError.of(
    'version_conflict',
    { resource, expected, current: current === null ? 'none (it does not exist)' : `ETag ${current}` },
    current === null ? {} : { extra: { etag: current }, headers: { ETag: current } },
  );
}

/**
 * Throws 409 `version_conflict` when an expected version (from `If-Match: "<version>"` or a
 * body's `expectedVersion`; -1 for an If-Match that names no version) is not the current one.
 * No expectation (null or undefined) always holds.
 */
export function checkVersion({
  expected,
  current,
  resource,
  extra = {},
}: {
  expected: number | null | undefined;
  current: number;
  resource: string;
  extra?: Record<string, unknown>;
}): void {
  if (expected === null || expected === undefined || expected === current) return;
  throw TrellisError.of(
    'version_conflict',
    {
      resource,
      expected: expected < 0 ? 'an unknown ETag' : `version ${expected}`,
      current: `version ${current}`,
    },
    { extra: { ...extra, etag: versionTag(current) }, headers: { ETag: versionTag(current) } },
  );
}
