import type { z } from 'zod';
import type { CallOptions, Transport } from '../http/transport';
import { type AccessEntry, AccessEntryList, type GrantInput, GrantResponse, MemberList } from '../schemas';
import type { SiteMember } from './members';

export type AccessRecord = z.output<typeof AccessEntry>;
export type Grant = z.output<typeof GrantResponse>;

/** Access to sites. `mySites` needs no site; `siteUsers` and `grant` act on the client's site. */
export function createAccessApi(transport: Transport) {
  return {
    /** GET /api/access/my-sites: the sites the caller can access, with its role on each. */
    mySites: (options: CallOptions = {}): Promise<AccessRecord[]> =>
      transport.request({ method: 'get', path: 'access/my-sites', schema: AccessEntryList, ...options }),
    /** GET /api/access/site-users (admin; site-scoped): users with access to the site. */
    siteUsers: (options: CallOptions = {}): Promise<SiteMember[]> =>
      transport.request({ method: 'get', path: 'access/site-users', schema: MemberList, ...options }),
    /** POST /api/access/grant (admin; site-scoped): grants `role` on the site to `userId`. */
    grant: (body: GrantInput, options: CallOptions = {}): Promise<Grant> =>
      transport.request({
        method: 'post',
        path: 'access/grant',
        schema: GrantResponse,
        json: body,
        ...options,
      }),
  };
}
export type AccessApi = ReturnType<typeof createAccessApi>;
