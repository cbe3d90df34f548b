import type { NodeQuery, PropFilter } from '../port';
import type { FilterScalar } from '../shared/node-query';
import { searchWords } from '../shared/search-text';
import type { SqlValue } from './connection';
import { carries } from './schema';

/** A compiled node query: the page and the exact total, parameters only. */
export interface CompiledNodeQuery {
  sql: string;
  params: SqlValue[];
  countSql: string;
  countParams: SqlValue[];
}

/** A JSON path selecting a top-level property; `prop` is a validated identifier. */
function path(prop: string): string {
  return `$."${prop}"`;
}

// json_type(): 'null' | 'true' | 'false' | 'integer' | 'real' | 'text' | 'array' | 'object', or NULL when absent.
const PRESENT = `(json_type(n.props, ?) IS NOT NULL AND json_type(n.props, ?) <> 'null')`;
const MISSING = `(json_type(n.props, ?) IS NULL OR json_type(n.props, ?) = 'null')`;

/** SQL (and its parameters) that is true when the property equals `value` with the same JSON type. */
function equals(prop: string, value: FilterScalar): [string, SqlValue[]] {
  const p = path(prop);
  if (value === null) return [MISSING, [p, p]];
  if (typeof value === 'boolean') return [`json_type(n.props, ?) = ?`, [p, value ? 'true' : 'false']];
  if (typeof value === 'number') {
    return [`(json_type(n.props, ?) IN ('integer', 'real') AND json_extract(n.props, ?) = ?)`, [p, p, value]];
  }
  return [`(json_type(n.props, ?) = 'text' AND json_extract(n.props, ?) = ?)`, [p, p, value]];
}

const COMPARE = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

function filterSql(filter: PropFilter): [string, SqlValue[]] {
  const p = path(filter.prop);
  switch (filter.op) {
    case 'eq':
      return equals(filter.prop, filter.value as FilterScalar);
    case 'ne': {
      const [sql, params] = equals(filter.prop, filter.value as FilterScalar);
      // json_type() is NULL for an absent property; NOT NULL would drop the row, so default to false.
      return [`NOT IFNULL(${sql}, 0)`, params];
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const types = typeof filter.value === 'number' ? `('integer', 'real')` : `('text')`;
      return [
        `(json_type(n.props, ?) IN ${types} AND json_extract(n.props, ?) ${COMPARE[filter.op]} ?)`,
        [p, p, filter.value as string | number],
      ];
    }
    case 'in': {
      const values = filter.value as FilterScalar[];
      if (values.length === 0) return ['0', []];
      const parts = values.map((value) => equals(filter.prop, value));
      return [`(${parts.map(([sql]) => sql).join(' OR ')})`, parts.flatMap(([, params]) => params)];
    }
    case 'contains': {
      const value = filter.value as string;
      return [
        `(CASE json_type(n.props, ?) WHEN 'text' THEN instr(lower(json_extract(n.props, ?)), ?) > 0 ` +
          `WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(n.props, ?) e WHERE e.type = 'text' AND e.value = ?) ` +
          'ELSE 0 END)',
        [p, p, value.toLowerCase(), p, value],
      ];
    }
    case 'exists':
      return filter.value === false ? [MISSING, [p, p]] : [PRESENT, [p, p]];
  }
}

/** The FTS5 query for `q`: every word, quoted (words hold only letters and digits). */
export function ftsMatch(q: string | undefined): string | null {
  if (q === undefined) return null;
  const words = searchWords(q);
  return words.length === 0 ? null : words.map((word) => `"${word}"`).join(' ');
}

/**
 * Compiles a validated NodeQuery. Property names are identifiers passed as JSON path
 * parameters; every value is a parameter.
 *
 * Nodes carry their primary label in an indexed column and further labels in their `labels`
 * JSON, with `label_carriers` naming the primary labels whose nodes carry a further label
 * (schema.ts), so the query is a UNION ALL of two branches: the label's own index range, and
 * the index ranges of its carriers' primary labels with each node's labels looked at (empty
 * in most graphs and for most labels); sort keys are computed in each branch and the compound
 * is ordered by them, so a page by id is read in index order.
 */
export function compileNodeQuery(query: NodeQuery): CompiledNodeQuery {
  const match = ftsMatch(query.q);
  // With q, the full-text match drives the join (CROSS JOIN fixes the order in SQLite);
  // otherwise SQLite would walk the label index and re-run the match for every node.
  const nodes = match === null ? 'nodes n' : 'nodes_fts CROSS JOIN nodes n ON n.rid = nodes_fts.rowid';
  const where: string[] = [];
  const whereParams: SqlValue[] = [];
  if (match !== null) {
    where.push('nodes_fts MATCH ?');
    whereParams.push(match);
  }
  for (const filter of query.where ?? []) {
    const [sql, filterParams] = filterSql(filter);
    where.push(sql);
    whereParams.push(...filterParams);
  }
  const filters = where.map((sql) => ` AND ${sql}`).join('');

  const keys: string[] = [];
  const keyParams: SqlValue[] = [];
  const order: string[] = [];
  (query.orderBy ?? []).forEach((key, i) => {
    const dir = key.direction === 'desc' ? 'DESC' : 'ASC';
    const p = path(key.prop);
    keys.push(`${MISSING} AS m${i}`, `json_extract(n.props, ?) AS k${i}`);
    keyParams.push(p, p, p);
    // Missing values sort last ascending and first descending, as in Cypher.
    order.push(`m${i} ${dir}`, `k${i} ${dir}`);
  });
  if (order.length === 0 && match !== null) {
    keys.push('bm25(nodes_fts) AS score');
    order.push('score');
  }
  order.push('id');
  const columns = ['n.id AS id', 'n.labels', 'n.props', ...keys].join(', ');

  const primary = `FROM ${nodes} WHERE n.label = ?${filters}`;
  // The carrier's label is bound once (the branch's first parameter, as the primary's).
  const extra =
    match === null
      ? `FROM label_carriers c CROSS JOIN nodes n ON n.label = c.primary_label WHERE c.label = ? AND ${carries('n', 'c.label')}${filters}`
      : `FROM ${nodes} CROSS JOIN label_carriers c ON c.primary_label = n.label AND c.label = ? WHERE ${carries('n', 'c.label')}${filters}`;
  const branchParams = [query.label, ...whereParams];
  return {
    sql: `SELECT ${columns} ${primary} UNION ALL SELECT ${columns} ${extra} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`,
    params: [
      ...keyParams,
      ...branchParams,
      ...keyParams,
      ...branchParams,
      query.limit ?? -1,
      query.offset ?? 0,
    ],
    countSql: `SELECT (SELECT count(*) ${primary}) + (SELECT count(*) ${extra})`,
    countParams: [...branchParams, ...branchParams],
  };
}
