import type { Member } from '@trelliscms/core';
import {
  type AccessEntry,
  AccessEntryList,
  type GrantBody,
  GrantResponse,
  MemberList,
} from '@trelliscms/core';
import type { z } from 'zod';
import type { CallOptions, Transport } from '../http/transport';

/** Access to sites. `mySites` needs no site; `siteUsers` and `grant` act on the client's site. */
export function createAccessApi(transport: Transport) {
  return {
    /** GET /api/access/my-sites: the sites the caller can access, with its role on each. */
    mySites: (options: CallOptions = {}): Promise<AccessEntry[]> =>
      transport.request({ method: 'get', path: 'access/my-sites', schema: AccessEntryList, ...options }),
    /** GET /api/access/site-users (admin; site-scoped): users with access to the site. */
    siteUsers: (options: CallOptions = {}): Promise<Member[]> =>
      transport.request({ method: 'get', path: 'access/site-users', schema: MemberList, ...options }),
    /** POST /api/access/grant (admin; site-scoped): grants `role` on the site to `userId`. */
    grant: (body: z.input<typeof GrantBody>, options: CallOptions = {}): Promise<GrantResponse> =>
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
