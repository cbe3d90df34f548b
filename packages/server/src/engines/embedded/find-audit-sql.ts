import type { AuditFilter } from '../port';
import { AUDIT_MATCH_FIELDS } from '../shared/audit-filter';
import type { SqlValue } from './connection';

/** The SQL of one `findAudit` call: the page and the count, sharing one WHERE clause. */
export interface CompiledAuditQuery {
  page: { sql: string; params: SqlValue[] };
  count: { sql: string; params: SqlValue[] };
}

/**
 * Compiles a (checked) {@link AuditFilter} to SQL over the `audit` table. Columns are fixed
 * names; every value is a parameter. A prefix compares the leading characters as SQLite
 * counts them (`substr(col, 1, length(?)) = ?`), so no LIKE escaping or case folding applies.
 */
export function compileAuditQuery(filter: AuditFilter): CompiledAuditQuery {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  for (const field of AUDIT_MATCH_FIELDS) {
    const match = filter[field];
    if (match === undefined) continue;
    if ('in' in match) {
      conditions.push(`${field} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(match.in));
    } else {
      conditions.push(`substr(${field}, 1, length(?)) = ?`);
      params.push(match.prefix, match.prefix);
    }
  }
  if (filter.since !== undefined) {
    conditions.push('ts >= ?');
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    conditions.push('ts < ?');
    params.push(filter.until);
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const order = filter.order === 'asc' ? 'ASC' : 'DESC';
  return {
    page: {
      sql: `SELECT seq, ts, actor, action, target, data, prev_hash, hash FROM audit${where} ORDER BY seq ${order} LIMIT ? OFFSET ?`,
      params: [...params, filter.limit ?? -1, filter.offset ?? 0],
    },
    count: { sql: `SELECT count(*) FROM audit${where}`, params },
  };
}
