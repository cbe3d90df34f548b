import { int } from 'neo4j-driver';
import { EngineError, type FilterOp, type NodeQuery, type Props } from '../port';
import { assertCount, assertIdentifier } from '../shared/identifiers';
import { luceneQuery } from './lucene';
import { FILTER_PREFIX, NODE_LABEL, NODE_PROJECTION, realLabel } from './stored-node';

/** The Cypher of one findNodes call: a count query and a page query over the same match. */
export interface FindNodesCypher {
  count: string;
  page: string;
  params: Props;
}

const OPS = new Set<FilterOp>(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists']);

const COMPARISON: Partial<Record<FilterOp, string>> = {
  eq: '=',
  ne: '<>',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
};

/**
 * Compiles a NodeQuery to parameterized Cypher. Property names reach the query only as
 * parameters (`n[$f0k]`); the query text is assembled from fixed fragments and the label, which
 * is spliced in only as a checked identifier in backticks (realLabel). With `q`, the match starts from the full-text index and
 * the default order is by score.
 */
export function findNodesQuery({ graph, query }: { graph: string; query: NodeQuery }): FindNodesCypher {
  assertIdentifier(query.label, 'label');
  assertCount(query.limit, 'limit');
  assertCount(query.offset, 'offset');
  const params: Props = { g: graph };
  // The real label (see REAL_LABEL_PREFIX) lets the planner start from a label scan of that
  // label instead of every node of the graph; the label reaches the text only checked and quoted.
  const label = realLabel(query.label);
  const where: string[] = [];
  (query.where ?? []).forEach((filter, i) => {
    assertIdentifier(filter.prop, 'property name');
    if (!OPS.has(filter.op)) {
      throw new EngineError('invalid_argument', `Unknown filter operator ${JSON.stringify(filter.op)}`);
    }
    const key = `f${i}k`;
    const value = `f${i}v`;
    params[key] = `${FILTER_PREFIX}${filter.prop}`;
    where.push(filterCypher({ op: filter.op, key, value, given: filter.value, params }));
  });

  // A `q` without any word (blank, only punctuation) does not filter.
  const lucene = query.q === undefined ? null : luceneQuery({ graph, q: query.q });
  let match: string;
  if (lucene !== null) {
    params.lucene = lucene;
    match = `CALL db.index.fulltext.queryNodes('trellis_node_text', $lucene) YIELD node AS n, score
WHERE n.g = $g AND n:${label}${where.map((w) => ` AND ${w}`).join('')}`;
  } else {
    match = `MATCH (n:${NODE_LABEL}:${label} {g: $g})${where.length > 0 ? `\nWHERE ${where.join(' AND ')}` : ''}`;
  }

  const order: string[] = [];
  (query.orderBy ?? []).forEach((sort, i) => {
    assertIdentifier(sort.prop, 'property name');
    const direction = sort.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') {
      throw new EngineError('invalid_argument', `Unknown sort direction ${JSON.stringify(direction)}`);
    }
    params[`o${i}`] = `${FILTER_PREFIX}${sort.prop}`;
    order.push(`n[$o${i}] ${direction === 'asc' ? 'ASC' : 'DESC'}`);
  });
  if (order.length === 0 && lucene !== null) order.push('score DESC');
  order.push('n.id ASC');

  let paging = '';
  if (query.offset) {
    params.offset = int(query.offset);
    paging += ' SKIP $offset';
  }
  if (query.limit !== undefined) {
    params.limit = int(query.limit);
    paging += ' LIMIT $limit';
  }
  return {
    count: `${match}\nRETURN count(n) AS total`,
    // Sort and page the nodes themselves (the projection has no p_ properties), then project.
    page: `${match}\nWITH n${lucene !== null ? ', score' : ''}\nORDER BY ${order.join(', ')}${paging}\nRETURN ${NODE_PROJECTION} AS n`,
    params,
  };
}

function filterCypher({
  op,
  key,
  value,
  given,
  params,
}: {
  op: FilterOp;
  key: string;
  value: string;
  given: unknown;
  params: Props;
}): string {
  const prop = `n[$${key}]`;
  switch (op) {
    case 'exists':
      return given === false ? `${prop} IS NULL` : `${prop} IS NOT NULL`;
    case 'contains':
      if (typeof given !== 'string') {
        throw new EngineError('invalid_argument', 'The contains filter needs a string value');
      }
      params[value] = given.toLowerCase();
      params[`${value}e`] = given;
      // CASE evaluates one branch only, so toLower never sees a list, nor IN a string.
      return `(CASE WHEN ${prop} IS :: STRING THEN toLower(${prop}) CONTAINS $${value} WHEN ${prop} IS :: LIST<ANY> THEN $${value}e IN ${prop} ELSE false END)`;
    case 'in':
      if (!Array.isArray(given) || !given.every(isScalar)) {
        throw new EngineError(
          'invalid_argument',
          'The in filter needs a list of strings, numbers or booleans',
        );
      }
      params[value] = given;
      return `${prop} IN $${value}`;
    case 'eq':
    case 'ne': {
      // A missing prop and a null one are the same; `ne` is exactly the complement of `eq`.
      if (given === null || given === undefined)
        return op === 'eq' ? `${prop} IS NULL` : `${prop} IS NOT NULL`;
      if (!isScalar(given) && !(Array.isArray(given) && given.every(isScalar))) {
        throw new EngineError('invalid_argument', `The ${op} filter needs a string, number, boolean or null`);
      }
      params[value] = given;
      return op === 'eq'
        ? `coalesce(${prop} = $${value}, false)`
        : `NOT coalesce(${prop} = $${value}, false)`;
    }
    default:
      if (typeof given !== 'string' && typeof given !== 'number') {
        throw new EngineError('invalid_argument', `The ${op} filter needs a string or number`);
      }
      params[value] = given;
      return `${prop} ${COMPARISON[op]} $${value}`;
  }
}

function isScalar(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
