import { z } from 'zod';
import { DateTime, EdgeLabel, JsonObject, NodeLabel, ResourceName } from './common';

/**
 * Saved graph queries (`/api/queries`) are written in a small JSON query language that each
 * engine compiles (to SQL on the embedded engine, to Cypher on Neo4j), so a query is
 * portable between engines and cannot inject anything: values are always bound parameters.
 *
 * ```json
 * {
 *   "match": { "label": "Movie" },
 *   "where": [{ "field": "released", "op": "gte", "value": { "$param": "since" } }],
 *   "traverse": [{ "edge": "ACTED_IN", "direction": "in", "label": "Person" }],
 *   "orderBy": [{ "field": "name", "direction": "asc" }],
 *   "limit": 20
 * }
 * ```
 *
 * - `match.label` picks the start nodes by node label (a content type's `nodeLabel`).
 * - `where` filters are AND-ed; each compares a field with a value using one of the ops
 *   `eq`, `ne`, `lt`, `lte`, `gt`, `gte`, `in` (value is an array), `contains` (substring
 *   of a string, or member of a list field), `exists` (value true/false or absent = true).
 *   The field `id` is the item id.
 * - `traverse` steps follow edges of a label `out` (from the current node), `in` (to it)
 *   or `both`, optionally keeping only nodes of `label` and matching the step's `where`;
 *   the result is the nodes reached by the last step.
 * - `orderBy` sorts the result; `limit` (1 to 1000, default 100) and `offset` page it.
 * - A value `{"$param": "name"}` is replaced by the run's parameter `name`, declared in the
 *   saved query's `params` (with a type, whether it is required and a default).
 */
export const QueryOp = z
  .enum(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists'])
  .meta({ id: 'QueryOp' });
export type QueryOp = z.infer<typeof QueryOp>;

/** A reference to a run parameter: `{"$param": "name"}`. */
export const QueryParamRef = z.strictObject({ $param: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) });
export type QueryParamRef = z.infer<typeof QueryParamRef>;

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A value in a filter: a literal (scalar or list of scalars) or a parameter reference. */
export const QueryValue = z.union([Scalar, z.array(Scalar).max(1000), QueryParamRef]);
export type QueryValue = z.infer<typeof QueryValue>;

/** A field path: an identifier such as `title` (the item id is `id`). */
const QueryField = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a field name');

/** One filter: `field op value`. `exists` may leave the value out (meaning true). */
export const QueryFilter = z
  .object({
    field: QueryField,
    op: QueryOp,
    value: QueryValue.optional(),
  })
  .superRefine((filter, ctx) => {
    if (filter.op !== 'exists' && filter.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `op ${filter.op} needs a value` });
    }
    if (
      filter.op === 'in' &&
      filter.value !== undefined &&
      !Array.isArray(filter.value) &&
      !isParamRef(filter.value)
    ) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'op in needs an array value' });
    }
    if (
      filter.op === 'exists' &&
      filter.value !== undefined &&
      typeof filter.value !== 'boolean' &&
      !isParamRef(filter.value)
    ) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'op exists takes true or false' });
    }
  })
  .meta({ id: 'QueryFilter' });
export type QueryFilter = z.infer<typeof QueryFilter>;

function isParamRef(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '$param' in value;
}

/** One traversal step along edges of `edge` in `direction`. */
export const QueryTraverseStep = z
  .object({
    edge: EdgeLabel,
    direction: z.enum(['out', 'in', 'both']).default('out'),
    /** Keep only reached nodes with this label. */
    label: NodeLabel.optional(),
    where: z.array(QueryFilter).max(50).optional(),
  })
  .meta({ id: 'QueryTraverseStep' });
export type QueryTraverseStep = z.infer<typeof QueryTraverseStep>;

/** A sort key. */
export const QueryOrder = z
  .object({ field: QueryField, direction: z.enum(['asc', 'desc']).default('asc') })
  .meta({ id: 'QueryOrder' });
export type QueryOrder = z.infer<typeof QueryOrder>;

/** A graph query in the portable JSON query language (see the module comment). */
export const GraphQuery = z
  .object({
    match: z.object({ label: NodeLabel }),
    where: z.array(QueryFilter).max(50).optional(),
    traverse: z.array(QueryTraverseStep).max(8).optional(),
    orderBy: z.array(QueryOrder).max(8).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .meta({
    id: 'GraphQuery',
    description:
      'A graph query in the portable JSON query language: match.label picks start nodes by node label; where filters (AND-ed) use the ops eq, ne, lt, lte, gt, gte, in (array value), contains, exists; traverse steps follow edges of an uppercase label out/in/both, optionally keeping a label and matching their own where; orderBy sorts; limit (1..1000) and offset page. A value {"$param": "name"} is bound from the run parameters.',
  });
export type GraphQuery = z.infer<typeof GraphQuery>;

/** A declared parameter of a saved query. */
export const QueryParamDefinition = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    type: z.enum(['string', 'number', 'boolean', 'stringlist']),
    required: z.boolean().optional(),
    default: Scalar.or(z.array(Scalar)).optional(),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'QueryParamDefinition' });
export type QueryParamDefinition = z.infer<typeof QueryParamDefinition>;

const savedQueryShape = {
  name: ResourceName,
  description: z.string().max(2000).optional(),
  query: GraphQuery,
  params: z.array(QueryParamDefinition).max(50).optional(),
};

/** Every `$param` a query refers to must be declared. */
function checkParams(
  saved: { query?: GraphQuery; params?: QueryParamDefinition[] },
  ctx: z.RefinementCtx,
): void {
  if (!saved.query) return;
  const declared = new Set((saved.params ?? []).map((param) => param.name));
  for (const name of paramRefs(saved.query)) {
    if (!declared.has(name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['params'],
        message: `the query uses $param ${name}, which is not declared`,
      });
    }
  }
}

/** The names of every `{"$param": name}` a query uses. */
export function paramRefs(query: GraphQuery): string[] {
  const names = new Set<string>();
  const visit = (filters: QueryFilter[] | undefined) => {
    for (const filter of filters ?? []) {
      if (isParamRef(filter.value)) names.add((filter.value as QueryParamRef).$param);
    }
  };
  visit(query.where);
  for (const step of query.traverse ?? []) visit(step.where);
  return [...names];
}

/** A saved graph query (GET /api/queries/{name}). */
export const SavedQuery = z
  .object({
    ...savedQueryShape,
    createdAt: DateTime.optional(),
    updatedAt: DateTime.optional(),
  })
  .meta({ id: 'SavedQuery' });
export type SavedQuery = z.infer<typeof SavedQuery>;

/** GET /api/queries */
export const SavedQueryList = z.array(SavedQuery).meta({ id: 'SavedQueryList' });
export type SavedQueryList = z.infer<typeof SavedQueryList>;

/** POST /api/queries */
export const CreateSavedQueryBody = z
  .object(savedQueryShape)
  .superRefine(checkParams)
  .meta({ id: 'CreateSavedQueryBody' });
export type CreateSavedQueryBody = z.infer<typeof CreateSavedQueryBody>;

/** PUT or PATCH /api/queries/{name}: the given keys replace the stored ones. */
export const UpdateSavedQueryBody = z
  .object(savedQueryShape)
  .omit({ name: true })
  .partial()
  .superRefine(checkParams)
  .meta({ id: 'UpdateSavedQueryBody' });
export type UpdateSavedQueryBody = z.infer<typeof UpdateSavedQueryBody>;

/** Path parameters of /api/queries/{name}. */
export const SavedQueryParams = z.object({ name: ResourceName });
export type SavedQueryParams = z.infer<typeof SavedQueryParams>;

/** POST /api/queries/{name}/run: parameter values, and a `limit`/`offset` overriding the query's. */
export const RunQueryBody = z
  .object({
    params: JsonObject.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .meta({ id: 'RunQueryBody' });
export type RunQueryBody = z.infer<typeof RunQueryBody>;

/** The answer of a run: the matched items (ContentRecord-like objects) and timing. */
export const RunQueryResponse = z
  .object({
    ok: z.literal(true),
    name: z.string(),
    items: z.array(JsonObject),
    count: z.number().int().min(0),
    tookMs: z.number().int().min(0),
  })
  .meta({ id: 'RunQueryResponse' });
export type RunQueryResponse = z.infer<typeof RunQueryResponse>;
