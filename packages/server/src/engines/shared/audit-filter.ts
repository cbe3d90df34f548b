import { type AuditFilter, type AuditMatch, EngineError } from '../port';
import { assertCount } from './identifiers';

/** The text fields of an audit record a filter can match. */
export const AUDIT_MATCH_FIELDS = ['actor', 'action', 'target'] as const;

/** At most this many values in one `in` match. */
export const MAX_AUDIT_MATCH_VALUES = 1000;

function assertMatch(match: unknown, field: string): asserts match is AuditMatch | undefined {
  if (match === undefined) return;
  const bad = () =>
    new EngineError(
      'invalid_argument',
      `The audit filter's ${field} must be {in: string[]} (1 to ${MAX_AUDIT_MATCH_VALUES} values) or {prefix: string}`,
    );
  if (typeof match !== 'object' || match === null) throw bad();
  if ('in' in match) {
    const values = (match as { in: unknown }).in;
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.length > MAX_AUDIT_MATCH_VALUES ||
      values.some((value) => typeof value !== 'string')
    ) {
      throw bad();
    }
    return;
  }
  if (typeof (match as { prefix?: unknown }).prefix !== 'string') throw bad();
}

/** Checks a {@link AuditFilter} as both engines need it; throws EngineError `invalid_argument`. */
export function assertAuditFilter(filter: unknown): asserts filter is AuditFilter {
  if (typeof filter !== 'object' || filter === null) {
    throw new EngineError('invalid_argument', 'findAudit needs a filter object');
  }
  const f = filter as Record<string, unknown>;
  for (const field of AUDIT_MATCH_FIELDS) assertMatch(f[field], field);
  for (const bound of ['since', 'until'] as const) {
    if (f[bound] !== undefined && typeof f[bound] !== 'string') {
      throw new EngineError('invalid_argument', `The audit filter's ${bound} must be an ISO 8601 string`);
    }
  }
  if (f.order !== undefined && f.order !== 'asc' && f.order !== 'desc') {
    throw new EngineError('invalid_argument', "The audit filter's order must be 'asc' or 'desc'");
  }
  assertCount(f.limit, 'limit');
  assertCount(f.offset, 'offset');
  if (f.total !== undefined && typeof f.total !== 'boolean') {
    throw new EngineError('invalid_argument', "The audit filter's total must be a boolean");
  }
}
