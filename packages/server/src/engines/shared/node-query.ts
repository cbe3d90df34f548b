import type { FilterOp, NodeQuery, PropFilter } from '../port';
import { EngineError } from '../port';
import { assertCount, assertIdentifier } from './identifiers';

const OPS: ReadonlySet<FilterOp> = new Set([
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'contains',
  'exists',
]);

/** A scalar a filter compares with. */
export type FilterScalar = string | number | boolean | null;

function isScalar(value: unknown): value is FilterScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/**
 * Validates a NodeQuery (label, filters, ordering, paging) before either engine compiles it,
 * so both reject the same input with EngineError `invalid_argument`.
 */
export function assertNodeQuery(query: NodeQuery): void {
  if (typeof query !== 'object' || query === null) {
    throw new EngineError('invalid_argument', 'A node query must be an object');
  }
  assertIdentifier(query.label, 'label');
  assertCount(query.limit, 'limit');
  assertCount(query.offset, 'offset');
  if (query.q !== undefined && typeof query.q !== 'string') {
    throw new EngineError('invalid_argument', 'q must be a string');
  }
  for (const filter of query.where ?? []) assertFilter(filter);
  for (const key of query.orderBy ?? []) {
    assertIdentifier(key?.prop, 'orderBy property');
    if (key.direction !== undefined && key.direction !== 'asc' && key.direction !== 'desc') {
      throw new EngineError('invalid_argument', `Invalid sort direction ${JSON.stringify(key.direction)}`);
    }
  }
}

function assertFilter(filter: PropFilter): void {
  assertIdentifier(filter?.prop, 'filter property');
  if (!OPS.has(filter.op)) {
    throw new EngineError('invalid_argument', `Invalid filter operator ${JSON.stringify(filter.op)}`);
  }
  const { op, value } = filter;
  const bad = (expected: string) =>
    new EngineError('invalid_argument', `Filter ${filter.prop} ${op} needs ${expected}`);
  switch (op) {
    case 'eq':
    case 'ne':
      if (!isScalar(value)) throw bad('a string, number, boolean or null');
      return;
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
        throw bad('a string or a number');
      }
      return;
    case 'in':
      if (!Array.isArray(value) || !value.every(isScalar))
        throw bad('an array of strings, numbers, booleans or nulls');
      return;
    case 'contains':
      if (typeof value !== 'string') throw bad('a string');
      return;
    case 'exists':
      if (value !== undefined && typeof value !== 'boolean') throw bad('true, false or no value');
      return;
  }
}
