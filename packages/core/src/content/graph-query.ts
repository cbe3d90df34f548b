import { TrellisError } from '../errors/trellis-error';
import { itemSlug } from '../publishing/route-pattern';
import type { ContentType } from '../schemas/content-type';
import type {
  GraphQueryInput as GraphQuery,
  QueryFollowStepInput as QueryFollowStep,
  QueryParams,
  QueryParamValue,
} from '../schemas/queries';
import {
  bindParams,
  compareValues,
  conditionHolds,
  isParamRef,
  parseSort,
  parseWhere,
} from './list-language';
import { listField, type TypedCondition, type TypedSortKey, typeListQuery } from './type-list-query';

/**
 * The evaluator of saved queries (schema and language: core `schemas/queries.ts`,
 * docs/queries.md). One evaluator for every place a query runs: the server reads the site graph
 * through the engine, a build reads its snapshot; both hand it a {@link GraphQueryReader}, so a
 * query selects, orders, pages and projects the same way everywhere. Conditions are the list
 * language's (`conditionHolds`, `compareValues`), typed against the content type first
 * (`typeListQuery`).
 */

/** What the evaluator reads of an item (a ContentRecord, a snapshot item). */
export interface QueryItem {
  id: string;
  type: string;
  fields: Record<string, unknown>;
  status?: string | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}

/** What the evaluator reads of a content type. */
export type QueryTypeInfo = Pick<ContentType, 'name' | 'fields'>;

/** A value or a promise of it: a build's snapshot answers at once, the server's engine later. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Where a query reads the graph. Items are the visible ones only (a build of `prod` sees what
 * is published there); an edge leads somewhere only when both its ends are visible items.
 */
export interface GraphQueryReader<I extends QueryItem = QueryItem> {
  /** The content type of this name, or null. */
  type(name: string): MaybePromise<QueryTypeInfo | null>;
  /** Every visible item of a type. */
  itemsOfType(type: string): MaybePromise<readonly I[]>;
  /**
   * For each of `ids`, the ids at the other end of its edges labelled `edge` (`*`: any label)
   * that leave it (`out`) or enter it (`in`).
   */
  neighbours(
    ids: readonly string[],
    edge: string,
    direction: 'out' | 'in',
  ): MaybePromise<ReadonlyMap<string, readonly string[]>>;
  /** The visible items among `ids`, by id. */
  items(ids: readonly string[]): MaybePromise<ReadonlyMap<string, I>>;
}

/** The result of a run: a page of items and their rows, and how many matched. */
export interface QueryResult<I extends QueryItem = QueryItem> {
  /** The items of the page, in order. */
  items: I[];
  /** The page as rows: `id`, `type` and the selected values (every field and built-in without `select`). */
  rows: Array<Record<string, unknown>>;
  /** Every match, independent of limit and offset. */
  total: number;
  limit: number;
  offset: number;
}

/** The most hops one follow step takes (as the schema's `MAX_FOLLOW_DEPTH`). */
const MAX_FOLLOW_DEPTH = 3;

/** The rows of a page when the query gives no `limit`. */
export const DEFAULT_QUERY_LIMIT = 100;
/** The most rows one page holds. */
export const MAX_QUERY_LIMIT = 1000;

/** The value of a field or a built-in (`id`, `type`, `slug`, `status`, `createdAt`, `updatedAt`) of an item. */
export function queryValue(item: QueryItem, field: string): unknown {
  switch (field) {
    case 'id':
      return item.id;
    case 'type':
      return item.type;
    case 'slug':
      return itemSlug(item);
    case 'status':
      return item.status ?? null;
    case 'createdAt':
      return item.createdAt ?? item.fields.createdAt ?? null;
    case 'updatedAt':
      return item.updatedAt ?? item.fields.updatedAt ?? null;
    default:
      return item.fields[field] ?? null;
  }
}

/**
 * An item as a row of a result: `id` and `type`, then the selected names' values (`null` when
 * missing); without `select`, every field and the built-ins `slug`, `status`, `createdAt`,
 * `updatedAt`.
 */
export function queryRow(item: QueryItem, select?: readonly string[]): Record<string, unknown> {
  if (select && select.length > 0) {
    const row: Record<string, unknown> = { id: item.id, type: item.type };
    for (const name of select) row[name] = queryValue(item, name);
    return row;
  }
  return {
    ...item.fields,
    id: item.id,
    type: item.type,
    slug: itemSlug(item),
    status: queryValue(item, 'status'),
    createdAt: queryValue(item, 'createdAt'),
    updatedAt: queryValue(item, 'updatedAt'),
  };
}

/** The detail of a list language error, without the summary of the language that follows it. */
export function listQueryDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /^The list query is not valid: (.*?)\. `where` is/s.exec(message)?.[1] ?? message;
}

function invalidQuery(detail: string): TrellisError {
  return TrellisError.of('invalid_query', { detail });
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function coerce(type: string, value: unknown): QueryParamValue | null {
  switch (type) {
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
        return Number(value);
      }
      return null;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : null;
    default:
      if (typeof value === 'string') return value;
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
  }
}

/**
 * The values of a run's parameters: each declared one from `given`, else its default; checked
 * against its declared type (`"5"` is the number 5, `"true"` is true, as a command line gives
 * them). Throws 400 `invalid_query_params` naming every problem: a value not of its type, a
 * required parameter without a value, a name not declared. An optional parameter without a
 * value is left out (its conditions are too).
 */
export function bindQueryParams({
  name,
  params,
  given,
}: {
  name: string;
  params: QueryParams | undefined;
  given: Readonly<Record<string, unknown>> | undefined;
}): Record<string, QueryParamValue> {
  const declared = params ?? {};
  const values: Record<string, QueryParamValue> = {};
  const problems: string[] = [];
  for (const key of Object.keys(given ?? {})) {
    if (!Object.hasOwn(declared, key)) {
      const known = Object.keys(declared);
      problems.push(
        `\`${key}\` is not a parameter of the query (${known.length > 0 ? `parameters: ${known.join(', ')}` : 'it has none'})`,
      );
    }
  }
  for (const [key, definition] of Object.entries(declared)) {
    const raw = given && Object.hasOwn(given, key) ? given[key] : undefined;
    const value = raw === undefined || raw === null ? definition.default : raw;
    if (value === undefined) {
      if (definition.required) problems.push(`\`${key}\` is required (a ${definition.type})`);
      continue;
    }
    const typed = coerce(definition.type, value);
    if (typed === null) problems.push(`\`${key}\` must be a ${definition.type}, not ${describeValue(value)}`);
    else values[key] = typed;
  }
  if (problems.length > 0) {
    throw TrellisError.of('invalid_query_params', { name, detail: problems.join('; ') });
  }
  return values;
}

/** A `where` and `sort` typed against a content type, or a 400 `invalid_query` naming where it is. */
function typeClause({
  type,
  where,
  sort,
  values,
  at,
}: {
  type: QueryTypeInfo;
  where: string | undefined;
  sort: string | undefined;
  values: Readonly<Record<string, unknown>>;
  at: string;
}): { where: TypedCondition[]; sort: TypedSortKey[] } {
  try {
    const conditions = bindParams(parseWhere(where ?? '', { params: true }), values);
    return typeListQuery({ type, where: conditions, sort: parseSort(sort) });
  } catch (error) {
    throw invalidQuery(`${at}: ${listQueryDetail(error)}`);
  }
}

function unknownType(name: string, at: string): TrellisError {
  return invalidQuery(`${at}: \`${name}\` is not a content type of the site`);
}

/**
 * Checks a query against the site's types without running it: every `type` exists, every name
 * of a `where`, `sort` or `select` is a field of its type or a built-in, literal values suit
 * their fields. Conditions on a `$parameter` are checked by name only (their value comes with
 * the run). Throws 400 `invalid_query` naming the clause at fault.
 */
export function* checkGraphQuery(
  query: GraphQuery,
  typeOf: (name: string) => MaybePromise<QueryTypeInfo | null>,
): Generator<unknown, void, unknown> {
  const steps = query.follow ?? [];
  const clauses = [
    { typeName: query.type, where: query.where, sort: query.sort, at: 'query' },
    ...steps.map((step, index) => ({
      typeName: step.type,
      where: step.where,
      sort: step.sort,
      at: `follow[${index}]`,
    })),
  ];
  // `select` names fields of the result's type: the last step's (when it keeps one type)
  const resultAt = clauses.length - 1;
  for (const [index, clause] of clauses.entries()) {
    if (!clause.typeName) continue;
    const type = (yield typeOf(clause.typeName)) as QueryTypeInfo | null;
    if (!type) throw unknownType(clause.typeName, clause.at);
    try {
      const parsed = parseWhere(clause.where ?? '', { params: true });
      for (const condition of parsed) {
        if (isParamRef(condition.value) && !listField(type, condition.field)) {
          throw TrellisError.of('invalid_list_query', {
            detail: `\`${condition.field}\` is not a field of ${type.name}`,
          });
        }
      }
      typeListQuery({
        type,
        where: parsed.filter((c) => !isParamRef(c.value)),
        sort: parseSort(clause.sort),
      });
    } catch (error) {
      throw invalidQuery(`${clause.at}: ${listQueryDetail(error)}`);
    }
    if (index === resultAt && query.select) {
      const unknown = query.select.filter((name) => !listField(type, name));
      if (unknown.length > 0) {
        throw invalidQuery(
          `select: ${unknown.map((name) => `\`${name}\``).join(', ')} ${unknown.length > 1 ? 'are not fields' : 'is not a field'} of ${type.name}`,
        );
      }
    }
  }
}

/** Items filtered by typed conditions and ordered by typed sort keys, then by id. */
function filterAndSort<I extends QueryItem>(
  items: readonly I[],
  clause: { where: TypedCondition[]; sort: TypedSortKey[] },
): I[] {
  const matched = items.filter((item) =>
    clause.where.every((condition) => conditionHolds(queryValue(item, condition.field), condition)),
  );
  return matched.sort((a, b) => {
    for (const key of clause.sort) {
      const order = compareValues(queryValue(a, key.field), queryValue(b, key.field));
      if (order !== 0) return key.descending ? -order : order;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/** The ids reached from each of `starts` within the step's depth, the start itself aside. */
function* reach<I extends QueryItem>(
  reader: GraphQueryReader<I>,
  starts: readonly string[],
  step: QueryFollowStep,
): Generator<unknown, Map<string, I>, unknown> {
  const reached = new Map<string, I>();
  const seen = new Map<string, Set<string>>(starts.map((id) => [id, new Set([id])]));
  let frontier: Array<[string, string]> = starts.map((id) => [id, id]);
  const directions: Array<'out' | 'in'> =
    step.direction === 'both' ? ['out', 'in'] : [step.direction === 'in' ? 'in' : 'out'];
  const depth = Math.min(Math.max(1, Math.trunc(step.depth ?? 1)), MAX_FOLLOW_DEPTH);
  for (let level = 0; level < depth && frontier.length > 0; level++) {
    const nodes = [...new Set(frontier.map(([, node]) => node))];
    const lookups: Array<ReadonlyMap<string, readonly string[]>> = [];
    for (const direction of directions) {
      lookups.push(
        (yield reader.neighbours(nodes, step.edge, direction)) as ReadonlyMap<string, readonly string[]>,
      );
    }
    const candidates: Array<[string, string]> = [];
    for (const [start, node] of frontier) {
      const startSeen = seen.get(start)!;
      for (const lookup of lookups) {
        for (const next of lookup.get(node) ?? []) {
          if (startSeen.has(next)) continue;
          startSeen.add(next);
          candidates.push([start, next]);
        }
      }
    }
    const ids = [...new Set(candidates.map(([, id]) => id))];
    const visible = (ids.length > 0 ? yield reader.items(ids) : new Map()) as ReadonlyMap<string, I>;
    frontier = candidates.filter(([, id]) => visible.has(id));
    for (const [, id] of frontier) if (!reached.has(id)) reached.set(id, visible.get(id)!);
  }
  return reached;
}

/**
 * Runs a query (a generator: see {@link runGraphQuery} and {@link runGraphQuerySync}, which
 * drive it with a reader). `values` are the run's bound parameters ({@link bindQueryParams});
 * `page` replaces the query's `limit` and `offset`.
 */
export function* evaluateGraphQuery<I extends QueryItem>({
  query,
  values,
  reader,
  page = {},
}: {
  query: GraphQuery;
  values: Readonly<Record<string, QueryParamValue>>;
  reader: GraphQueryReader<I>;
  page?: { limit?: number; offset?: number };
}): Generator<unknown, QueryResult<I>, unknown> {
  const start = (yield reader.type(query.type)) as QueryTypeInfo | null;
  if (!start) throw unknownType(query.type, 'query');
  const clause = typeClause({ type: start, where: query.where, sort: query.sort, values, at: 'query' });
  let current = filterAndSort((yield reader.itemsOfType(query.type)) as readonly I[], clause);
  for (const [index, step] of (query.follow ?? []).entries()) {
    const at = `follow[${index}]`;
    const reached = [
      ...(yield* reach(
        reader,
        current.map((item) => item.id),
        step,
      )).values(),
    ];
    if (!step.type) {
      current = filterAndSort(reached, { where: [], sort: [] });
      continue;
    }
    const type = (yield reader.type(step.type)) as QueryTypeInfo | null;
    if (!type) throw unknownType(step.type, at);
    const typed = typeClause({ type, where: step.where, sort: step.sort, values, at });
    current = filterAndSort(
      reached.filter((item) => item.type === step.type),
      typed,
    );
  }
  const limit = Math.min(page.limit ?? query.limit ?? DEFAULT_QUERY_LIMIT, MAX_QUERY_LIMIT);
  const offset = page.offset ?? query.offset ?? 0;
  const items = current.slice(offset, offset + limit);
  return {
    items,
    rows: items.map((item) => queryRow(item, query.select)),
    total: current.length,
    limit,
    offset,
  };
}

/** Drives a query generator with a reader whose answers may be promises. */
export async function driveAsync<T>(generator: Generator<unknown, T, unknown>): Promise<T> {
  let step = generator.next();
  while (!step.done) step = generator.next(await step.value);
  return step.value;
}

/** Drives a query generator with a reader that answers at once (a build's snapshot). */
export function driveSync<T>(generator: Generator<unknown, T, unknown>): T {
  let step = generator.next();
  while (!step.done) {
    if (step.value instanceof Promise) throw new Error('driveSync: the reader answered with a promise');
    step = generator.next(step.value);
  }
  return step.value;
}

/** Runs a query through a reader whose answers may be promises (the server's engine). */
export function runGraphQuery<I extends QueryItem>(
  params: Parameters<typeof evaluateGraphQuery<I>>[0],
): Promise<QueryResult<I>> {
  return driveAsync(evaluateGraphQuery(params));
}

/** Runs a query through a reader that answers at once (a build's snapshot). */
export function runGraphQuerySync<I extends QueryItem>(
  params: Parameters<typeof evaluateGraphQuery<I>>[0],
): QueryResult<I> {
  return driveSync(evaluateGraphQuery(params));
}
