import {
  type CreateSiteBody,
  DeleteSiteResponse,
  Site,
  SiteList,
  type UpdateSiteBody,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** Sites of the platform (no `X-Site-Id`). */
export function createSitesApi(transport: Transport) {
  return {
    /** GET /api/sites: every site for an owner or admin; otherwise the sites the caller can access. */
    list: (options: CallOptions = {}): Promise<Site[]> =>
      transport.request({ method: 'get', path: 'sites', schema: SiteList, ...options }),
    /**
     * POST /api/sites: creates a site (the caller becomes its admin); `starterKit` seeds
     * default types and templates. A 500 `partial_site_creation` is retried.
     */
    create: (body: z.input<typeof CreateSiteBody>, options: CallOptions = {}): Promise<Site> =>
      transport.request({ method: 'post', path: 'sites', schema: Site, json: body, ...options }),
    /** GET /api/sites/{id} */
    get: (id: string, options: CallOptions = {}): Promise<Site> =>
      transport.request({ method: 'get', path: path('sites', id), schema: Site, ...options }),
    /** PUT /api/sites/{id}: only the changed fields. */
    update: (id: string, body: z.input<typeof UpdateSiteBody>, options: CallOptions = {}): Promise<Site> =>
      transport.request({ method: 'put', path: path('sites', id), schema: Site, json: body, ...options }),
    /** DELETE /api/sites/{id}: a soft delete (owner only); the engine keeps the data for a while. */
    delete: (id: string, options: CallOptions = {}): Promise<DeleteSiteResponse> =>
      transport.request({
        method: 'delete',
        path: path('sites', id),
        schema: DeleteSiteResponse,
        ...options,
      }),
  };
}
export type SitesApi = ReturnType<typeof createSitesApi>;
