import { AuditChecklist, AuditLog, AuditStatus } from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/** The filters and page of {@link createAuditApi}'s `log` (GET /api/audit). */
export interface AuditLogFilters {
  /** A user id (their API keys included), a key id or `system`; a prefix when it ends in `*`. */
  actor?: string;
  /** e.g. `content.update`; a prefix when it ends in `*` (`content.*`). */
  action?: string;
  /** The resource, e.g. `post:hello`; a prefix when it ends in `*` (`post:*`). */
  target?: string;
  /** ISO date-time, inclusive. */
  since?: string;
  /** ISO date-time, exclusive. */
  until?: string;
  /** `desc` (newest first, the default) or `asc`. */
  order?: 'desc' | 'asc';
  /** Default 50, at most 500. */
  limit?: number;
  offset?: number;
  /** Default: the site's graph; the platform owner may name the platform graph. */
  graph?: string;
}

/**
 * The audit log and audit-chain checks (site-scoped). For `verify` and `checklist`, `graph`
 * defaults to the graph of the client's site, read once with GET /api/sites/{id}.
 */
export function createAuditApi(transport: Transport, graphOfSite: () => Promise<string>) {
  const graphOf = async (graph: string | undefined) => graph ?? (await graphOfSite());
  return {
    /**
     * GET /api/audit (admin): who did what to which resource, when — newest first, `limit`
     * (default 50, at most 500) entries from `offset`, with the `total` that match.
     * `actor`, `action` and `target` match exactly, or as a prefix when they end in `*`
     * (`target: 'post:*'`); a user id as `actor` also matches that user's API keys. `since`
     * (inclusive) and `until` (exclusive) bound the time.
     */
    log: (query: AuditLogFilters = {}, options: CallOptions = {}): Promise<AuditLog> =>
      transport.request({ method: 'get', path: 'audit', schema: AuditLog, query: { ...query }, ...options }),
    /** GET /api/audit/verify: 200 whether the chain is intact or broken; `status` says which. */
    verify: async (query: { graph?: string } = {}, options: CallOptions = {}): Promise<AuditStatus> =>
      transport.request({
        method: 'get',
        path: 'audit/verify',
        schema: AuditStatus,
        query: { graph: await graphOf(query.graph) },
        ...options,
      }),
    /** POST /api/audit/checklist */
    checklist: async (query: { graph?: string } = {}, options: CallOptions = {}): Promise<AuditChecklist> =>
      transport.request({
        method: 'post',
        path: 'audit/checklist',
        schema: AuditChecklist,
        json: {},
        query: { graph: await graphOf(query.graph) },
        ...options,
      }),
  };
}
export type AuditApi = ReturnType<typeof createAuditApi>;
