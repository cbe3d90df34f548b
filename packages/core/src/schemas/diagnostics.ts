import { z } from 'zod';
import { DateTime } from './common';

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
