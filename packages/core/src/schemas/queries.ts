import { z } from 'zod';
import { listQueryDetail } from '../content/graph-query';
import { paramNames, parseSort, parseWhere } from '../content/list-language';
import { DateTime, EdgeLabel, FieldName, JsonObject, ResourceName, TypeName } from './common';

/**
 * Saved graph queries (`/api/queries`, `{% query %}`) are written in a small JSON query
 * language over the site's content graph (docs/queries.md):
 *
 * ```json
 * {
 *   "type": "post",
 *   "where": "tags contains $tag and date >= $since",
 *   "sort": "-date",
 *   "follow": [{ "edge": "WROTE", "direction": "in", "type": "author" }],
 *   "select": ["name", "slug"],
 *   "limit": 20
 * }
 * ```
 *
 * - `type` picks the items to start from (a content type's name); `where` and `sort` are the
 *   list language of `{% list %}` and `GET /api/content/{type}` (core `list-language.ts`), with
 *   `$name` standing for a declared parameter.
 * - `follow` steps go from the current items along edges of a label (`*` for any) `out`, `in`
 *   or `both`, up to `depth` hops (1 to 3); a step may keep only items of a `type` and filter
 *   and sort them with its own `where` and `sort` (which need its `type`). The result is the
 *   items the last step reached.
 * - `select` projects each result to `id`, `type` and the named fields or built-ins; `limit`
 *   (1 to 1000, default 100) and `offset` page it, and `total` counts every match.
 * - `params` declares each parameter with a type (`string`, `number`, `boolean`), whether it
 *   is required, and a default. Values are checked and bound after parsing: never spliced into
 *   query text. A condition whose optional parameter has no value is left out.
 */

/** A `where` of the list language; `$name` is a parameter. */
const QueryWhere = z
  .string()
  .max(2000)
  .describe(
    'Conditions of the list language joined by `and`: `<field> <op> <value>` with op one of == != > >= < <= contains; `$name` is a declared parameter.',
  );

/** A `sort` of the list language: `-date,title`. */
const QuerySort = z
  .string()
  .max(2000)
  .describe('Sort keys separated by commas, `-` before one for descending.');

/** The most hops one follow step takes. */
export const MAX_FOLLOW_DEPTH = 3;

/** One step along edges from the current items. */
export const QueryFollowStep = z
  .strictObject({
    edge: z.union([EdgeLabel, z.literal('*')]).describe('The edge label to follow, `*` for any.'),
    direction: z.enum(['out', 'in', 'both']).default('out'),
    depth: z.number().int().min(1).max(MAX_FOLLOW_DEPTH).default(1),
    /** Keep only reached items of this content type (needed by `where` and `sort`). */
    type: TypeName.optional(),
    where: QueryWhere.optional(),
    sort: QuerySort.optional(),
  })
  .meta({ id: 'QueryFollowStep' });
export type QueryFollowStep = z.infer<typeof QueryFollowStep>;
export type QueryFollowStepInput = z.input<typeof QueryFollowStep>;

/** A graph query in the portable JSON query language (see the module comment). */
export const GraphQuery = z
  .strictObject({
    type: TypeName.describe('The content type whose items the query starts from.'),
    where: QueryWhere.optional(),
    sort: QuerySort.optional(),
    follow: z.array(QueryFollowStep).max(4).optional(),
    select: z.array(FieldName).max(100).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .meta({
    id: 'GraphQuery',
    description:
      'A graph query (docs/queries.md): `type` picks the start items, `where`/`sort` filter and order them in the list language of `{% list %}` (`$name` is a parameter), `follow` steps walk edges out/in/both to a depth (keeping a `type`, with their own where/sort), `select` projects fields, `limit` (1..1000, default 100) and `offset` page the result.',
  });
export type GraphQuery = z.infer<typeof GraphQuery>;
/** A query as written (follow steps may leave out their defaults): what the evaluator takes. */
export type GraphQueryInput = z.input<typeof GraphQuery>;

/** A parameter value: text, a number or true/false. */
export const QueryParamValue = z.union([z.string(), z.number(), z.boolean()]);
export type QueryParamValue = z.infer<typeof QueryParamValue>;

/** The types a parameter can be declared with. */
export const QueryParamType = z.enum(['string', 'number', 'boolean']).meta({ id: 'QueryParamType' });
export type QueryParamType = z.infer<typeof QueryParamType>;

/** A declared parameter of a saved query. */
export const QueryParamDefinition = z
  .strictObject({
    type: QueryParamType,
    required: z.boolean().optional(),
    default: QueryParamValue.optional(),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'QueryParamDefinition' });
export type QueryParamDefinition = z.infer<typeof QueryParamDefinition>;

/** A parameter name: an identifier, used as `$name` in a `where`. */
const ParamName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier such as tag');

/** Parameters by name. */
export const QueryParams = z.record(ParamName, QueryParamDefinition);
export type QueryParams = z.infer<typeof QueryParams>;

const savedQueryShape = {
  name: ResourceName,
  description: z.string().max(2000).optional(),
  query: GraphQuery,
  params: QueryParams.optional(),
};

/** Each `where`/`sort` of a query, with the path it sits at. */
function clausesOf(
  query: GraphQuery,
): Array<{ path: Array<string | number>; where?: string; sort?: string }> {
  return [
    { path: ['query'], where: query.where, sort: query.sort },
    ...(query.follow ?? []).map((step, index) => ({
      path: ['query', 'follow', index],
      where: step.where,
      sort: step.sort,
    })),
  ];
}

/**
 * The syntax of a saved query, without the site's types: every `where` and `sort` parses, every
 * `$name` is declared, a follow step's `where`/`sort` has its `type`, every default has its
 * parameter's type. The server checks names against the site's types when it stores the query.
 */
function checkSavedQuery(
  saved: { query?: GraphQuery; params?: QueryParams | null },
  ctx: z.RefinementCtx,
  options: { isPartial?: boolean } = {},
): void {
  // a partial update's parameters are checked once merged with the stored ones (SavedQueryRules)
  const checksDeclared = !options.isPartial || saved.params !== undefined;
  const params = saved.params ?? {};
  for (const [name, param] of Object.entries(params)) {
    if (param.default !== undefined && typeof param.default !== param.type) {
      ctx.addIssue({
        code: 'custom',
        path: ['params', name, 'default'],
        message: `the default of ${name} must be a ${param.type}`,
      });
    }
  }
  if (!saved.query) return;
  for (const clause of clausesOf(saved.query)) {
    const isFollow = clause.path.length > 1;
    if (isFollow && (clause.where || clause.sort)) {
      const step = saved.query.follow?.[clause.path[2] as number];
      if (!step?.type) {
        ctx.addIssue({
          code: 'custom',
          path: [...clause.path, 'type'],
          message: 'a follow step with `where` or `sort` needs the `type` of the items it keeps',
        });
      }
    }
    try {
      const used = paramNames(parseWhere(clause.where ?? '', { params: true }));
      for (const name of used) {
        if (checksDeclared && !Object.hasOwn(params, name)) {
          ctx.addIssue({
            code: 'custom',
            path: [...clause.path, 'where'],
            message: `$${name} is not a declared parameter (declare it in params)`,
          });
        }
      }
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: [...clause.path, 'where'], message: listQueryDetail(error) });
    }
    try {
      parseSort(clause.sort);
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: [...clause.path, 'sort'], message: listQueryDetail(error) });
    }
  }
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
  .strictObject(savedQueryShape)
  .superRefine(checkSavedQuery)
  .meta({ id: 'CreateSavedQueryBody' });
export type CreateSavedQueryBody = z.infer<typeof CreateSavedQueryBody>;

/** PUT or PATCH /api/queries/{name}: the given keys replace the stored ones (`null` removes `description` or `params`). */
export const UpdateSavedQueryBody = z
  .strictObject({
    description: savedQueryShape.description.nullable().optional(),
    query: GraphQuery.optional(),
    params: QueryParams.nullable().optional(),
  })
  .superRefine((saved, ctx) => checkSavedQuery(saved, ctx, { isPartial: true }))
  .meta({ id: 'UpdateSavedQueryBody' });
export type UpdateSavedQueryBody = z.infer<typeof UpdateSavedQueryBody>;

/** A stored saved query after an update is merged in: checked as a whole again. */
export const SavedQueryRules = z
  .object(savedQueryShape)
  .loose()
  .superRefine((saved, ctx) => checkSavedQuery(saved, ctx));

/** Path parameters of /api/queries/{name}. */
export const SavedQueryParams = z.object({ name: ResourceName });
export type SavedQueryParams = z.infer<typeof SavedQueryParams>;

/** POST /api/queries/{name}/run: parameter values, and a `limit`/`offset` replacing the query's. */
export const RunQueryBody = z
  .strictObject({
    params: z.record(z.string(), QueryParamValue).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .meta({ id: 'RunQueryBody' });
export type RunQueryBody = z.infer<typeof RunQueryBody>;

/** The answer of a run: one page of rows (`id`, `type` and the projected values), and the total. */
export const RunQueryResponse = z
  .object({
    ok: z.literal(true),
    name: z.string(),
    items: z.array(JsonObject),
    /** Rows on this page. */
    count: z.number().int().min(0),
    /** Every match, independent of limit and offset. */
    total: z.number().int().min(0),
    limit: z.number().int().min(1),
    offset: z.number().int().min(0),
    tookMs: z.number().int().min(0),
  })
  .meta({ id: 'RunQueryResponse' });
export type RunQueryResponse = z.infer<typeof RunQueryResponse>;
