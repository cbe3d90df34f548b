import { TrellisError } from '@trelliscms/core';
import type { FastifyReply } from 'fastify';

/**
 * The response header every list endpoint sends: how many records match the request's
 * filters, independent of `limit` and `offset` (so a client pages until `offset` reaches it).
 */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** Sets {@link TOTAL_COUNT_HEADER} on a list's answer. */
export function withTotal(reply: FastifyReply, total: number): FastifyReply {
  return reply.header(TOTAL_COUNT_HEADER, String(total));
}

/** The route description of a list read whole and paged by {@link pageOf}. */
export const WHOLE_LIST_PAGING =
  '`limit` (1 to 1000; absent: all) and `offset` page the list; the `X-Total-Count` header counts every record.';

/** The paging query of a list: `limit` (absent: every record) and `offset` (default 0). */
export interface PageRequest {
  limit?: number;
  offset?: number;
}

/**
 * One page of a list read whole (the site's types, templates, resources…): `offset` records
 * skipped, at most `limit` kept, and the count of all of them.
 */
export function pageOf<T>(
  all: readonly T[],
  { limit, offset = 0 }: PageRequest,
): { items: T[]; total: number } {
  if (!Number.isInteger(offset) || offset < 0) {
    throw TrellisError.of('validation_failed', { detail: 'query.offset: must be a non-negative integer' });
  }
  const end = limit === undefined ? undefined : offset + limit;
  return { items: all.slice(offset, end), total: all.length };
}
