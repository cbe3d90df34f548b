import { Member, MemberList, RevokeMemberResponse, type UpdateMemberRoleBody } from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';

/** Members of the client's site and their roles (site-scoped; not login or registration). */
export function createMembersApi(transport: Transport) {
  return {
    /** GET /api/auth/users: members of the site. */
    list: (options: CallOptions = {}): Promise<Member[]> =>
      transport.request({ method: 'get', path: 'auth/users', schema: MemberList, ...options }),
    /** PUT /api/auth/users/{id}/role: changes a member's role; resolves to the updated member. */
    setRole: (
      userId: string,
      role: z.input<typeof UpdateMemberRoleBody>['role'],
      options: CallOptions = {},
    ): Promise<Member> =>
      transport.request({
        method: 'put',
        path: `${path('auth', 'users', userId)}/role`,
        schema: Member,
        json: { role },
        ...options,
      }),
    /** DELETE /api/auth/users/{id}: revokes the user's access to the site. */
    revoke: (userId: string, options: CallOptions = {}): Promise<RevokeMemberResponse> =>
      transport.request({
        method: 'delete',
        path: path('auth', 'users', userId),
        schema: RevokeMemberResponse,
        ...options,
      }),
  };
}
export type MembersApi = ReturnType<typeof createMembersApi>;
