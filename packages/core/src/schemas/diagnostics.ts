import { z } from 'zod';
import { DateTime, TypeName } from './common';

/** Spec §2 AuditStatus: the verdict of an audit-chain verification. */
export const AuditStatus = z
  .object({
    graph: z.string(),
    status: z.enum(['ok', 'broken', 'empty']),
    records: z.number().int(),
    last_seq: z.number().int(),
    last_hash: z.string().optional(),
    verified_at: DateTime.optional(),
    reason: z.string().nullable().optional(),
  })
  .meta({ id: 'AuditStatus' });
export type AuditStatus = z.infer<typeof AuditStatus>;

/** The `graph` query parameter of /audit/verify and /audit/checklist. */
export const AuditQuery = z.object({ graph: z.string().min(1).max(200) });
export type AuditQuery = z.infer<typeof AuditQuery>;

/** POST /audit/checklist: one row per verified feature. */
export const AuditChecklist = z
  .object({
    rows: z.array(
      z.object({
        feature: z.string(),
        status: z.string(),
        version: z.string().nullable(),
        last_verified_at: z.string().nullable(),
        message: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'AuditChecklist' });
export type AuditChecklist = z.infer<typeof AuditChecklist>;

/** GET /maintenance/engine/procedures (200). */
export const EngineProcedures = z
  .object({
    ok: z.boolean(),
    via: z.string(),
    procedureCount: z.number().int(),
    procedures: z.array(z.record(z.string(), z.unknown())),
    attempts: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'EngineProcedures' });
export type EngineProcedures = z.infer<typeof EngineProcedures>;

/** POST /maintenance/embeddings/materialize query: the content type whose nodes get embeddings. */
export const EmbeddingsMaterializeQuery = z.object({ type: TypeName });
export type EmbeddingsMaterializeQuery = z.infer<typeof EmbeddingsMaterializeQuery>;

/** POST /maintenance/embeddings/materialize (200). Idempotent: embedded nodes are untouched. */
export const EmbeddingsMaterializeResponse = z
  .object({
    ok: z.boolean(),
    type: z.string(),
    nodeLabel: z.string(),
    durationMs: z.number().int().min(0),
    note: z.string(),
    /** Nodes that got an embedding in this call. */
    embedded: z.number().int().min(0).optional(),
  })
  .meta({ id: 'EmbeddingsMaterializeResponse' });
export type EmbeddingsMaterializeResponse = z.infer<typeof EmbeddingsMaterializeResponse>;

/** POST /maintenance/embeddings/materialize (502): the engine call failed. */
export const EmbeddingsMaterializeFailure = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    hint: z.string(),
    type: z.string(),
    nodeLabel: z.string(),
  })
  .meta({ id: 'EmbeddingsMaterializeFailure' });
export type EmbeddingsMaterializeFailure = z.infer<typeof EmbeddingsMaterializeFailure>;

/** GET /maintenance/engine/procedures (502): no introspection query worked. */
export const EngineProceduresFailure = z
  .object({
    ok: z.literal(false),
    error: z.string(),
    code: z.string().optional(),
    hint: z.string(),
    attempts: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'EngineProceduresFailure' });
export type EngineProceduresFailure = z.infer<typeof EngineProceduresFailure>;
