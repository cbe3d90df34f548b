import { z } from 'zod';
import { ContentId, EdgeLabel, JsonObject, TypeName } from './common';

/** Records per batch of POST /api/import/json: default 100, 1 to 500 (docs/api-spec.md §8). */
export const IMPORT_JSON_BATCH = { default: 100, min: 1, max: 500 } as const;
/** Edges per batch of POST /api/import/edges: default 500, 1 to 2000 (docs/api-spec.md §8). */
export const IMPORT_EDGES_BATCH = { default: 500, min: 1, max: 2000 } as const;
/**
 * POST /api/import/json: `records` of `typeName`, written `batchSize` per transaction.
 * A record whose item exists updates it (`updated`), or changes nothing when it holds what the
 * item holds (`unchanged`: no new version, no audit entry); `skipExisting` leaves existing
 * items alone (`skipped`). `dryRun` validates and writes nothing.
 * The record count is not bounded here: the route answers 413 above `IMPORT_MAX_RECORDS`
 * (content/import-plan.ts).
 */
export const ImportJsonBody = z
  .object({
    typeName: TypeName,
    records: z.array(JsonObject),
    batchSize: z
      .number()
      .int()
      .min(IMPORT_JSON_BATCH.min)
      .max(IMPORT_JSON_BATCH.max)
      .default(IMPORT_JSON_BATCH.default),
    skipExisting: z.boolean().default(false),
    dryRun: z.boolean().default(false),
    /**
     * Publish every item the import wrote to this environment (e.g. `prod`), in one live
     * revision at the end of the import: the import and its publish in one call.
     */
    publish: z
      .string()
      .regex(/^(env:)?[a-z0-9][a-z0-9_-]{0,63}$/, 'must be an environment name such as prod')
      .transform((env) => env.replace(/^env:/, ''))
      .optional(),
  })
  .meta({ id: 'ImportJsonBody' });
export type ImportJsonBody = z.infer<typeof ImportJsonBody>;

/**
 * The warning an import gives when it ran long enough to risk a gateway timeout: send
 * `suggestedCallCount` calls of at most `suggestedBatchSize` records, each with that
 * `batchSize` (always a valid one, 1 to 500).
 */
export const ImportTimeoutWarning = z
  .object({
    message: z.string(),
    suggestedBatchSize: z.number().int().min(IMPORT_JSON_BATCH.min).max(IMPORT_JSON_BATCH.max),
    suggestedCallCount: z.number().int().min(1),
  })
  .meta({ id: 'GatewayTimeoutWarning' });
export type ImportTimeoutWarning = z.infer<typeof ImportTimeoutWarning>;

/**
 * Spec §2 ImportJsonResponse. Every record is counted once: `created` (a new item),
 * `updated` (an existing item changed: a new version), `unchanged` (an existing item already
 * held the record), `skipped` (an existing item left alone with `skipExisting`) or `failed`
 * (in `errors`). A record whose item exists is never counted `created`.
 */
export const ImportJsonResponse = z
  .object({
    ok: z.boolean(),
    totalRecords: z.number().int().min(0),
    /** Records that created an item (with `dryRun`: would create). */
    created: z.number().int().min(0),
    failed: z.number().int().min(0),
    batches: z.number().int().min(0),
    tookMs: z.number().int().min(0),
    recordsPerSec: z.number().min(0),
    errors: z.array(z.object({ index: z.number().int().min(0), id: z.string(), error: z.string() })),
    gatewayTimeoutWarning: ImportTimeoutWarning.nullable(),
    /**
     * Records that replaced an existing item's fields (and given relationships) with
     * different ones: one new version each. Optional in the schema for older servers; this
     * server always sends it.
     */
    updated: z.number().int().min(0).optional(),
    /**
     * Records whose existing item already held the same fields and relationships: nothing
     * written, no version, no audit entry. Optional for older servers; always sent.
     */
    unchanged: z.number().int().min(0).optional(),
    /** Items left alone because they existed (with `skipExisting`). */
    skipped: z.number().int().min(0).optional(),
    /** True when nothing was written (`dryRun`). */
    dryRun: z.boolean().optional(),
    /** With `publish`: how many written items went live, and in which environment. */
    published: z.object({ envId: z.string(), count: z.number().int().min(0) }).optional(),
  })
  .meta({ id: 'ImportJsonResponse' });
export type ImportJsonResponse = z.infer<typeof ImportJsonResponse>;

/**
 * The 413 body of an import with too many records (or edges): send `suggestedCallCount` calls
 * of at most `suggestedBatchSize` items, each with that `batchSize` (always a valid one: 1 to
 * 500 for records, 1 to 2000 for edges).
 */
export const ImportTooLarge = z
  .object({
    error: z.string(),
    code: z.literal('too_many_records'),
    hint: z.string().optional(),
    suggestedBatchSize: z.number().int().min(1).max(IMPORT_EDGES_BATCH.max),
    suggestedCallCount: z.number().int().min(1),
    /** The most records (or edges) one request takes. */
    max: z.number().int().min(1).optional(),
  })
  .meta({ id: 'ImportTooLarge' });
export type ImportTooLarge = z.infer<typeof ImportTooLarge>;

/** An edge triple `(from)-[edge]->(to)` between two existing items, with optional properties. */
export const EdgeTriple = z
  .object({
    from: ContentId,
    /** An uppercase identifier such as `ACTED_IN`. */
    edge: EdgeLabel,
    to: ContentId,
    props: JsonObject.optional(),
  })
  .meta({ id: 'EdgeTriple' });
export type EdgeTriple = z.infer<typeof EdgeTriple>;

/**
 * POST /api/import/edges: edges are merged between existing items, `batchSize` per
 * transaction. Each edge must be a relationship the source item's type declares (its
 * `edgeLabel`, to an item of its `target` type); a single-target relationship (`many-to-one`,
 * `one-to-one`) holds one target.
 */
export const ImportEdgesBody = z
  .object({
    edges: z.array(EdgeTriple),
    batchSize: z
      .number()
      .int()
      .min(IMPORT_EDGES_BATCH.min)
      .max(IMPORT_EDGES_BATCH.max)
      .default(IMPORT_EDGES_BATCH.default),
  })
  .meta({ id: 'ImportEdgesBody' });
export type ImportEdgesBody = z.infer<typeof ImportEdgesBody>;

/**
 * Spec §2 ImportEdgesResponse. `mismatch` counts triples whose from or to item does not
 * exist; they are silent no-ops. `failed` counts edges refused (malformed, not a declared
 * relationship, or a second target of a single-target relationship), each in `errors`.
 */
export const ImportEdgesResponse = z
  .object({
    ok: z.boolean(),
    totalEdges: z.number().int().min(0),
    merged: z.number().int().min(0),
    mismatch: z.number().int().min(0),
    failed: z.number().int().min(0),
    batches: z.number().int().min(0),
    tookMs: z.number().int().min(0),
    edgesPerSec: z.number().min(0),
    errors: z.array(z.object({ index: z.number().int().min(0), error: z.string() })),
  })
  .meta({ id: 'ImportEdgesResponse' });
export type ImportEdgesResponse = z.infer<typeof ImportEdgesResponse>;

/** An edge to remove: `(from)-[edge]->(to)`, ends as full ids. */
export const EdgeRef = z.object({ from: ContentId, edge: EdgeLabel, to: ContentId }).meta({ id: 'EdgeRef' });
export type EdgeRef = z.infer<typeof EdgeRef>;

/** POST /api/import/edges/remove: edges between items removed, `batchSize` per transaction. */
export const RemoveEdgesBody = z
  .object({
    edges: z.array(EdgeRef),
    batchSize: z
      .number()
      .int()
      .min(IMPORT_EDGES_BATCH.min)
      .max(IMPORT_EDGES_BATCH.max)
      .default(IMPORT_EDGES_BATCH.default),
  })
  .meta({ id: 'RemoveEdgesBody' });
export type RemoveEdgesBody = z.infer<typeof RemoveEdgesBody>;

/**
 * The answer of POST /api/import/edges/remove: `removed` edges existed and are gone,
 * `missing` did not exist (no-ops), `failed` were refused (malformed, not between items, or the
 * last target of a required relationship), each in `errors`.
 */
export const RemoveEdgesResponse = z
  .object({
    ok: z.boolean(),
    totalEdges: z.number().int().min(0),
    removed: z.number().int().min(0),
    missing: z.number().int().min(0),
    failed: z.number().int().min(0),
    batches: z.number().int().min(0),
    tookMs: z.number().int().min(0),
    errors: z.array(z.object({ index: z.number().int().min(0), error: z.string() })),
  })
  .meta({ id: 'RemoveEdgesResponse' });
export type RemoveEdgesResponse = z.infer<typeof RemoveEdgesResponse>;
