import { SiteSnapshot } from '@trelliscms/core';
import type { CallOptions, Transport } from '../http/transport';

/** The site as one document (site-scoped). */
export function createExportApi(transport: Transport) {
  return {
    /**
     * GET /api/export: the site snapshot a build reads (types, items, edges, templates,
     * transforms, routes, views, settings); `cms-build --snapshot` builds the same pages from it.
     */
    snapshot: (options: CallOptions = {}): Promise<SiteSnapshot> =>
      transport.request({ method: 'get', path: 'export', schema: SiteSnapshot, ...options }),
  };
}
export type ExportApi = ReturnType<typeof createExportApi>;
