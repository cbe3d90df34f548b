import { AuditChecklist, AuditStatus } from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/**
 * Audit-chain checks (site-scoped). `graph` defaults to the graph of the client's site,
 * read once with GET /api/sites/{id}.
 */
export function createAuditApi(transport: Transport, graphOfSite: () => Promise<string>) {
  const graphOf = async (graph: string | undefined) => graph ?? (await graphOfSite());
  return {
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
