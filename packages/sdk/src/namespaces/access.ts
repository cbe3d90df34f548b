import type { Invitation, Member } from '@trelliscms/core';
import {
  type AccessEntry,
  AccessEntryList,
  type CreateInvitationBody,
  type GrantBody,
  GrantResponse,
  InvitationAccepted,
  InvitationCreated,
  InvitationList,
  MemberList,
  UserMatchList,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/**
 * Access to sites. `mySites` and `acceptInvitation` need no site; the rest act on the
 * client's site (admin only).
 */
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
    /**
     * GET /api/access/users (admin; site-scoped): platform users to grant access to. Platform
     * owners and admins match any part of a name or e-mail; site admins an exact e-mail only.
     */
    findUsers: (
      q: string,
      query: { limit?: number } = {},
      options: CallOptions = {},
    ): Promise<UserMatchList> =>
      transport.request({
        method: 'get',
        path: 'access/users',
        schema: UserMatchList,
        query: { q, ...query },
        ...options,
      }),
    /** GET /api/access/invitations (admin; site-scoped): the open invitations, without their tokens. */
    invitations: (options: CallOptions = {}): Promise<Invitation[]> =>
      transport.request({ method: 'get', path: 'access/invitations', schema: InvitationList, ...options }),
    /**
     * POST /api/access/invitations (admin; site-scoped): invites `email` with `role`; the answer
     * carries the one-time `token` to hand to the invitee, shown this once.
     */
    invite: (
      body: z.input<typeof CreateInvitationBody>,
      options: CallOptions = {},
    ): Promise<InvitationCreated> =>
      transport.request({
        method: 'post',
        path: 'access/invitations',
        schema: InvitationCreated,
        json: body,
        ...options,
      }),
    /** DELETE /api/access/invitations/{id} (admin; site-scoped): its token stops working (204). */
    revokeInvitation: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('access', 'invitations', id), ...options });
    },
    /**
     * POST /api/auth/invitations/accept: redeems an invitation token, once. With the client's
     * credential the membership is the caller's; a client without one becomes a new user, and
     * the answer's `apiKey.secret` is their key for the site (shown once).
     */
    acceptInvitation: (token: string, options: CallOptions = {}): Promise<InvitationAccepted> =>
      transport.request({
        method: 'post',
        path: 'auth/invitations/accept',
        schema: InvitationAccepted,
        json: { token },
        ...options,
      }),
  };
}
export type AccessApi = ReturnType<typeof createAccessApi>;
