import { type Lead, LeadList } from '@trelliscms/core';
import { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';

/** The leads forms on the site's published pages sent (site-scoped; editors and above). */
export function createLeadsApi(transport: Transport) {
  return {
    /** GET /api/leads: one page of leads, newest first (`limit` default 50), with the count of all. */
    list: (
      query: { limit?: number; offset?: number } = {},
      options: CallOptions = {},
    ): Promise<ListPage<Lead>> =>
      transport.requestPage({
        method: 'get',
        path: 'leads',
        schema: LeadList,
        query: { ...query },
        ...options,
      }),
    /** GET /api/leads.csv: every lead as CSV (formula-safe cells). */
    exportCsv: (options: CallOptions = {}): Promise<string> =>
      transport.request({ method: 'get', path: 'leads.csv', schema: z.string(), ...options }),
    /** DELETE /api/leads/{id} (204). */
    delete: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('leads', id), ...options });
    },
  };
}
export type LeadsApi = ReturnType<typeof createLeadsApi>;
export type { Lead };
