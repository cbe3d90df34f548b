import { z } from 'zod';
import { DateTime, Role, SiteId } from './common';

/** The roles `POST /api/access/grant` can give. */
export const GrantRole = Role.extract(['admin', 'editor', 'publisher']).meta({ id: 'GrantRole' });
export type GrantRole = z.infer<typeof GrantRole>;

/** The roles `PUT /api/auth/users/{id}/role` can set. */
export const MemberRole = Role.exclude(['owner']).meta({ id: 'MemberRole' });
export type MemberRole = z.infer<typeof MemberRole>;

/** A user id: the identity provider's subject (`sub`) or a platform user id. */
export const UserId = z.string().min(1).max(200);

/** Spec §2 access entry: one site the caller can access (GET /api/access/my-sites). */
export const AccessEntry = z
  .object({
    siteId: SiteId,
    siteName: z.string(),
    graphName: z.string(),
    role: Role,
  })
  .meta({ id: 'AccessEntry' });
export type AccessEntry = z.infer<typeof AccessEntry>;

/** GET /api/access/my-sites */
export const AccessEntryList = z.array(AccessEntry).meta({ id: 'AccessEntryList' });
export type AccessEntryList = z.infer<typeof AccessEntryList>;

/**
 * A member of a site (GET /api/access/site-users, GET /api/auth/users): who has which role on
 * the current site. The spec leaves the fields open; these are the ones an admin UI needs.
 */
export const Member = z
  .object({
    /** The user's id. */
    userId: UserId,
    /** Login e-mail, when the identity provider gives one. */
    email: z.string().nullable().optional(),
    /** Display name, when known. */
    name: z.string().nullable().optional(),
    /** The user's role on this site. */
    role: Role,
    siteId: SiteId,
    /** When the role was granted (or last changed). */
    grantedAt: DateTime.optional(),
    /** Who granted it (a user id, or `apikey:<id>` for a key). */
    grantedBy: z.string().nullable().optional(),
  })
  .meta({ id: 'Member' });
export type Member = z.infer<typeof Member>;

/** GET /api/access/site-users and GET /api/auth/users */
export const MemberList = z.array(Member).meta({ id: 'MemberList' });
export type MemberList = z.infer<typeof MemberList>;

/** POST /api/access/grant (admin only): grants `role` on the current site to `userId`. */
export const GrantBody = z
  .object({
    userId: UserId,
    role: GrantRole,
  })
  .meta({ id: 'GrantBody' });
export type GrantBody = z.infer<typeof GrantBody>;

/** The answer of POST /api/access/grant: the member as now stored. */
export const GrantResponse = z.object({ ok: z.literal(true), member: Member }).meta({ id: 'GrantResponse' });
export type GrantResponse = z.infer<typeof GrantResponse>;

/** PUT /api/auth/users/{id}/role */
export const UpdateMemberRoleBody = z.object({ role: MemberRole }).meta({ id: 'UpdateMemberRoleBody' });
export type UpdateMemberRoleBody = z.infer<typeof UpdateMemberRoleBody>;

/** Path parameters of /api/auth/users/{id}. */
export const MemberParams = z.object({ id: UserId });
export type MemberParams = z.infer<typeof MemberParams>;

/** DELETE /api/auth/users/{id}: the user's access to the current site is revoked. */
export const RevokeMemberResponse = z
  .object({ ok: z.literal(true), userId: UserId, siteId: SiteId })
  .meta({ id: 'RevokeMemberResponse' });
export type RevokeMemberResponse = z.infer<typeof RevokeMemberResponse>;
