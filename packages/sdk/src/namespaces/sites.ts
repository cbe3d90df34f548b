import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { DeleteSiteResponse, Site, type SiteCreateInput, SiteList, type SiteUpdateInput } from '../schemas';

export type SiteRecord = z.output<typeof Site>;
export type SiteDeleted = z.output<typeof DeleteSiteResponse>;

/** Sites of the platform (no `X-Site-Id`). */
export function createSitesApi(transport: Transport) {
  return {
    /** GET /api/sites: every site for an owner or admin; otherwise the sites the caller can access. */
    list: (options: CallOptions = {}): Promise<SiteRecord[]> =>
      transport.request({ method: 'get', path: 'sites', schema: SiteList, ...options }),
    /**
     * POST /api/sites: creates a site (the caller becomes its admin); `starterKit` seeds
     * default types and templates. A 500 `partial_site_creation` is retried.
     */
    create: (body: SiteCreateInput, options: CallOptions = {}): Promise<SiteRecord> =>
      transport.request({ method: 'post', path: 'sites', schema: Site, json: body, ...options }),
    /** GET /api/sites/{id} */
    get: (id: string, options: CallOptions = {}): Promise<SiteRecord> =>
      transport.request({ method: 'get', path: path('sites', id), schema: Site, ...options }),
    /** PUT /api/sites/{id}: only the changed fields. */
    update: (id: string, body: SiteUpdateInput, options: CallOptions = {}): Promise<SiteRecord> =>
      transport.request({ method: 'put', path: path('sites', id), schema: Site, json: body, ...options }),
    /** DELETE /api/sites/{id}: a soft delete (owner only); the engine keeps the data for a while. */
    delete: (id: string, options: CallOptions = {}): Promise<SiteDeleted> =>
      transport.request({
        method: 'delete',
        path: path('sites', id),
        schema: DeleteSiteResponse,
        ...options,
      }),
  };
}
export type SitesApi = ReturnType<typeof createSitesApi>;
