import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Precondition } from '../shared/entity-tag';

/**
 * The HTTP side of conditional requests (RFC 9110 §13): reading `If-Match` and sending
 * `ETag`. The tags themselves and the precondition check are `shared/entity-tag.ts`; the
 * `ETag` of every other read and `If-None-Match` → 304 are the conditional-requests plugin.
 */

/** Sets the `ETag` of the resource an answer shows. */
export function withEtag(reply: FastifyReply, tag: string): FastifyReply {
  return reply.header('ETag', tag);
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The entity tags a conditional header lists (`"a", W/"b"`), weak ones as strong (`W/` dropped);
 * `*` for any; undefined when the header is absent or blank. An unquoted tag is read as if quoted.
 */
export function entityTags(header: string | string[] | undefined): '*' | string[] | undefined {
  const text = headerOf(header)?.trim();
  if (!text) return undefined;
  if (text === '*') return '*';
  return text
    .split(',')
    .map((part) => part.trim().replace(/^W\//, ''))
    .filter((part) => part !== '')
    .map((part) => (part.startsWith('"') && part.endsWith('"') && part.length >= 2 ? part : `"${part}"`));
}

/** The precondition of a request's `If-Match` header; undefined when it sends none. */
export function ifMatchOf(request: FastifyRequest): Precondition | undefined {
  const tags = entityTags(request.headers['if-match']);
  if (tags === undefined) return undefined;
  return tags === '*' ? { kind: 'any' } : { kind: 'tags', tags };
}

/**
 * The version an `If-Match` header expects, for resources tagged by version (items,
 * templates): `"3"`, `W/"3"` or `3`; null for `*` or no header. Anything else is an
 * expectation no version meets (-1), so the write answers 409.
 */
export function expectedVersionFrom(ifMatch: string | string[] | undefined): number | null {
  const tags = entityTags(ifMatch);
  if (tags === undefined || tags === '*') return null;
  const versions = tags.map((tag) => /^"(\d+)"$/.exec(tag)?.[1]).filter((v) => v !== undefined);
  return versions.length === 1 && tags.length === 1 ? Number(versions[0]) : -1;
}
