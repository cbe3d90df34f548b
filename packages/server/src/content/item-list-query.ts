import {
  type ContentStatus,
  conditionHolds,
  parseSort,
  parseWhere,
  type StoredContentType,
  TrellisError,
  type TypedCondition,
  type TypedSortKey,
  typeListQuery,
  type WhereOp,
} from '@trelliscms/core';
import type { FilterOp, NodeQuery, PropFilter } from '../engines/port';
import { PUBLISHED } from './item-record';

/** The engine side of a content list's `where`, `sort` and `status`. */
export interface ItemListFilter {
  where: PropFilter[];
  orderBy: NonNullable<NodeQuery['orderBy']>;
  /** True when a condition rules out every item of the type (e.g. `type == 'other'`). */
  isEmpty: boolean;
}

const OPS: Record<WhereOp, FilterOp> = {
  '==': 'eq',
  '!=': 'ne',
  '>': 'gt',
  '>=': 'gte',
  '<': 'lt',
  '<=': 'lte',
  contains: 'contains',
};

/**
 * The filter of a status: an item without a stored status reads as `draft`, and there are
 * two statuses, so "draft" is "not published".
 */
export function statusFilter(op: '==' | '!=', status: ContentStatus): PropFilter {
  const isPublished = status === PUBLISHED;
  const wantsPublished = op === '==' ? isPublished : !isPublished;
  return { prop: 'status', op: wantsPublished ? 'eq' : 'ne', value: PUBLISHED };
}

function unsupported(detail: string): TrellisError {
  return TrellisError.of('invalid_list_query', { detail });
}

function filterOf(type: StoredContentType, condition: TypedCondition): PropFilter | boolean {
  const { target, op, value } = condition;
  if (target.kind === 'field') return { prop: target.definition.name, op: OPS[op], value };
  switch (target.name) {
    case 'type':
      // Every item of the list has this type: the condition holds for all or for none.
      return conditionHolds(type.name, condition);
    case 'status':
      if ((op === '==' || op === '!=') && value !== null) return statusFilter(op, value as ContentStatus);
      return { prop: 'status', op: OPS[op], value };
    case 'createdAt':
    case 'updatedAt':
      return { prop: target.name, op: OPS[op], value };
    default:
      throw unsupported(
        `\`${target.name}\` cannot filter a content list (read one item with GET /api/content/${type.name}/{id})`,
      );
  }
}

function orderOf(keys: TypedSortKey[]): ItemListFilter['orderBy'] {
  const orderBy: ItemListFilter['orderBy'] = [];
  for (const key of keys) {
    const direction = key.descending ? 'desc' : 'asc';
    if (key.target.kind === 'field') {
      orderBy.push({ prop: key.target.definition.name, direction });
      continue;
    }
    const name = key.target.name;
    if (name === 'type') continue;
    if (name === 'id' || name === 'slug') {
      // Lists end in id order anyway, and ids are unique: later keys cannot matter.
      if (key.descending) {
        throw unsupported(`\`${name}\` sorts a content list ascending only (\`${name}\`, not \`-${name}\`)`);
      }
      break;
    }
    orderBy.push({ prop: name, direction });
  }
  return orderBy;
}

/**
 * Translates the `where`, `sort` and `status` of `GET /api/content/{type}` into the engine's
 * filters and order: the text is parsed and typed by core's list language (400
 * `invalid_list_query` naming every problem), fields become property filters, `status`,
 * `createdAt` and `updatedAt` filter their bookkeeping properties, and `type` holds for all
 * items or none. `id` and `slug` (unless the type has a `slug` field) cannot filter, and sort
 * ascending only.
 */
export function itemListFilter({
  type,
  where,
  sort,
  status,
}: {
  type: StoredContentType;
  where?: string;
  sort?: string;
  status?: ContentStatus;
}): ItemListFilter {
  const typed = typeListQuery({ type, where: parseWhere(where ?? ''), sort: parseSort(sort) });
  const filters: PropFilter[] = status === undefined ? [] : [statusFilter('==', status)];
  let isEmpty = false;
  for (const condition of typed.where) {
    const filter = filterOf(type, condition);
    if (filter === false) isEmpty = true;
    else if (filter !== true) filters.push(filter);
  }
  return { where: filters, orderBy: orderOf(typed.sort), isEmpty };
}
