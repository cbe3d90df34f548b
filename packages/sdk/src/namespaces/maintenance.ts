import { EmbeddingsMaterializeResponse, EngineProcedures } from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/** Maintenance of the client's site (site-scoped). */
export function createMaintenanceApi(transport: Transport) {
  return {
    /**
     * POST /api/maintenance/embeddings/materialize: computes missing embeddings of a type's
     * items (idempotent). Run after a bulk import if `{% similar %}` finds nothing.
     */
    materializeEmbeddings: (
      type: string,
      options: CallOptions = {},
    ): Promise<EmbeddingsMaterializeResponse> =>
      transport.request({
        method: 'post',
        path: 'maintenance/embeddings/materialize',
        schema: EmbeddingsMaterializeResponse,
        json: {},
        query: { type },
        ...options,
      }),
    /** GET /api/maintenance/engine/procedures: what the graph engine offers. */
    engineProcedures: (options: CallOptions = {}): Promise<EngineProcedures> =>
      transport.request({
        method: 'get',
        path: 'maintenance/engine/procedures',
        schema: EngineProcedures,
        ...options,
      }),
  };
}
export type MaintenanceApi = ReturnType<typeof createMaintenanceApi>;
