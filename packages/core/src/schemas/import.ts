import { z } from 'zod';
import { ContentId, EdgeLabel, JsonObject, TypeName } from './common';

/** Records per batch of POST /api/import/json: default 100, 1 to 500 (docs/api-spec.md §8). */
export const IMPORT_JSON_BATCH = { default: 100, min: 1, max: 500 } as const;
/** Edges per batch of POST /api/import/edges: default 500, 1 to 2000 (docs/api-spec.md §8). */
export const IMPORT_EDGES_BATCH = { default: 500, min: 1, max: 2000 } as const;
/**
 * POST /api/import/json: `records` of `typeName`, written `batchSize` per transaction.
 * `skipExisting` leaves items whose id exists alone; `dryRun` validates and writes nothing.
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

/** The warning an import gives when it ran long enough to risk a gateway timeout. */
export const ImportTimeoutWarning = z
  .object({
    message: z.string(),
    suggestedBatchSize: z.number().int().min(1),
    suggestedCallCount: z.number().int().min(1),
  })
  .meta({ id: 'GatewayTimeoutWarning' });
export type ImportTimeoutWarning = z.infer<typeof ImportTimeoutWarning>;

/** Spec §2 ImportJsonResponse. */
export const ImportJsonResponse = z
  .object({
    ok: z.boolean(),
    totalRecords: z.number().int().min(0),
    created: z.number().int().min(0),
    failed: z.number().int().min(0),
    batches: z.number().int().min(0),
    tookMs: z.number().int().min(0),
    recordsPerSec: z.number().min(0),
    errors: z.array(z.object({ index: z.number().int().min(0), id: z.string(), error: z.string() })),
    gatewayTimeoutWarning: ImportTimeoutWarning.nullable(),
    /** Items left alone because they existed (with `skipExisting`). */
    skipped: z.number().int().min(0).optional(),
    /** True when nothing was written (`dryRun`). */
    dryRun: z.boolean().optional(),
    /** With `publish`: how many written items went live, and in which environment. */
    published: z.object({ envId: z.string(), count: z.number().int().min(0) }).optional(),
  })
  .meta({ id: 'ImportJsonResponse' });
export type ImportJsonResponse = z.infer<typeof ImportJsonResponse>;

/** The 413 body of an import with too many records: split it as suggested. */
export const ImportTooLarge = z
  .object({
    error: z.string(),
    code: z.literal('too_many_records'),
    hint: z.string().optional(),
    suggestedBatchSize: z.number().int().min(1),
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

/** POST /api/import/edges: edges are merged between existing nodes, `batchSize` per transaction. */
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
 * exist; they are silent no-ops.
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
