import type { z } from 'zod';
import type { CallOptions, Transport } from '../http/transport';
import { EmbeddingsMaterializeResponse, EngineProcedures } from '../schemas';

export type EngineProcedureList = z.output<typeof EngineProcedures>;
export type EmbeddingsMaterialized = z.output<typeof EmbeddingsMaterializeResponse>;

/** Maintenance of the client's site (site-scoped). */
export function createMaintenanceApi(transport: Transport) {
  return {
    /**
     * POST /api/maintenance/embeddings/materialize: computes missing embeddings of a type's
     * items (idempotent). Run after a bulk import if `{% similar %}` finds nothing.
     */
    materializeEmbeddings: (type: string, options: CallOptions = {}): Promise<EmbeddingsMaterialized> =>
      transport.request({
        method: 'post',
        path: 'maintenance/embeddings/materialize',
        schema: EmbeddingsMaterializeResponse,
        json: {},
        query: { type },
        ...options,
      }),
    /** GET /api/maintenance/engine/procedures: what the graph engine offers. */
    engineProcedures: (options: CallOptions = {}): Promise<EngineProcedureList> =>
      transport.request({
        method: 'get',
        path: 'maintenance/engine/procedures',
        schema: EngineProcedures,
        ...options,
      }),
  };
}
export type MaintenanceApi = ReturnType<typeof createMaintenanceApi>;
