import { z } from 'zod';
import { DateTime, JsonObject, QueryInt, queryLimit, TypeName } from './common';

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
    /**
     * Where the chain fails: the first record that does not verify, or the first record missing
     * below an anchored head (a truncated chain); null when the chain verifies.
     */
    bad_seq: z.number().int().nullable().optional(),
    /** The highest head recorded outside the graph that the chain was checked against; null when none. */
    anchored_seq: z.number().int().nullable().optional(),
    /** Records up to this seq were written before the chain was keyed and carry plain sha256 hashes. */
    legacy_through: z.number().int().optional(),
  })
  .meta({ id: 'AuditStatus' });
export type AuditStatus = z.infer<typeof AuditStatus>;

/** The `graph` query parameter of /audit/verify and /audit/checklist. */
export const AuditQuery = z.object({ graph: z.string().min(1).max(200) });
export type AuditQuery = z.infer<typeof AuditQuery>;

/** The largest `limit` GET /api/audit takes. */
export const MAX_AUDIT_LOG_LIMIT = 500;

/** A text filter of GET /api/audit: an exact value, or a prefix when it ends in `*`. */
const AuditText = z.string().trim().min(1).max(500);

/**
 * GET /api/audit query. `actor`, `action` and `target` match exactly, or as a prefix when they
 * end in `*` (`post:*`, `content.*`); a user id as `actor` also matches the API keys acting
 * for that user. `since` (inclusive) and `until` (exclusive) bound the entry time. Entries come
 * newest first unless `order=asc`. `graph` picks the chain: the site's graph (the default) or,
 * for the platform owner, the platform graph.
 */
export const AuditLogQuery = z.object({
  graph: z.string().min(1).max(200).optional(),
  actor: AuditText.optional(),
  action: AuditText.optional(),
  target: AuditText.optional(),
  since: DateTime.optional(),
  until: DateTime.optional(),
  order: z.enum(['desc', 'asc']).default('desc'),
  limit: queryLimit({ fallback: 50, max: MAX_AUDIT_LOG_LIMIT }),
  offset: QueryInt.default(0),
});
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

/** One entry of an audit chain: who (`actor`) did what (`action`) to which resource (`target`), when (`ts`). */
export const AuditEntry = z
  .object({
    /** Position in the chain, from 1. */
    seq: z.number().int().min(1),
    ts: DateTime,
    /** A user id (`user:…`), an API key id (`key:…`) or `system`. */
    actor: z.string(),
    /** The user's (or, for a key, the key's and its user's) name, when known. */
    actorName: z.string().nullable(),
    /** e.g. `content.update`, `member.grant`. */
    action: z.string(),
    /** The resource, e.g. `post:hello`, `template:page`, `user:…`. */
    target: z.string(),
    data: JsonObject.optional(),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;

/** GET /api/audit: a page of entries; `total` counts every match, independent of limit and offset. */
export const AuditLog = z
  .object({
    items: z.array(AuditEntry),
    total: z.number().int().min(0),
    limit: z.number().int().min(1),
    offset: z.number().int().min(0),
  })
  .meta({ id: 'AuditLog' });
export type AuditLog = z.infer<typeof AuditLog>;

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
