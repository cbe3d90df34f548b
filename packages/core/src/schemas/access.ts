import { z } from 'zod';
import { ApiKeyCreated } from './api-key';
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

/** The most matches GET /api/access/users answers with. */
export const MAX_USER_MATCHES = 20;

/**
 * GET /api/access/users (admin; site-scoped): `q` is an e-mail address or, for platform owners
 * and admins, also part of a name or e-mail (case-insensitive, at least 2 characters).
 */
export const UserSearchQuery = z.object({
  q: z.string().trim().min(2).max(200),
  limit: z.coerce.number().int().min(1).max(MAX_USER_MATCHES).default(MAX_USER_MATCHES),
});
export type UserSearchQuery = z.infer<typeof UserSearchQuery>;

/** A platform user an admin can grant access to, with their role on the current site (null: none). */
export const UserMatch = z
  .object({
    userId: UserId,
    name: z.string().nullable(),
    email: z.string().nullable(),
    role: Role.nullable(),
  })
  .meta({ id: 'UserMatch' });
export type UserMatch = z.infer<typeof UserMatch>;

/** The answer of GET /api/access/users: at most `limit` matches; `total` counts them all. */
export const UserMatchList = z
  .object({ items: z.array(UserMatch), total: z.number().int().min(0) })
  .meta({ id: 'UserMatchList' });
export type UserMatchList = z.infer<typeof UserMatchList>;

/** The longest an invitation can stay open, in days. */
export const MAX_INVITATION_DAYS = 90;

/** POST /api/access/invitations (admin; site-scoped): who is invited, with which role, until when. */
export const CreateInvitationBody = z
  .object({
    email: z.email().max(254),
    role: MemberRole,
    /** The invitee's display name, used when accepting creates their user. */
    name: z.string().trim().min(1).max(200).optional(),
    /** Default: 7 days from now; at most 90 days. */
    expiresAt: DateTime.optional(),
  })
  .meta({ id: 'CreateInvitationBody' });
export type CreateInvitationBody = z.infer<typeof CreateInvitationBody>;

/** An invitation to a site, as listed (never with its token). */
export const Invitation = z
  .object({
    /** `invite:<id>` */
    id: z.string(),
    siteId: SiteId,
    email: z.string(),
    name: z.string().nullable(),
    role: MemberRole,
    /** The user who invited (their role must still allow the grant when it is accepted). */
    invitedBy: UserId,
    createdAt: DateTime,
    expiresAt: DateTime,
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof Invitation>;

/** GET /api/access/invitations: the site's open invitations (not accepted, revoked or expired). */
export const InvitationList = z.array(Invitation).meta({ id: 'InvitationList' });
export type InvitationList = z.infer<typeof InvitationList>;

/** The answer of POST /api/access/invitations: the invitation and its one-time token, shown this once. */
export const InvitationCreated = Invitation.extend({ token: z.string().min(16) }).meta({
  id: 'InvitationCreated',
});
export type InvitationCreated = z.infer<typeof InvitationCreated>;

/** Path parameters of /api/access/invitations/{id}. */
export const InvitationParams = z.object({ id: z.string().min(1).max(200) });
export type InvitationParams = z.infer<typeof InvitationParams>;

/** POST /api/access/invitations/accept: the token the invitee received. */
export const AcceptInvitationBody = z
  .object({ token: z.string().min(16).max(200) })
  .meta({ id: 'AcceptInvitationBody' });
export type AcceptInvitationBody = z.infer<typeof AcceptInvitationBody>;

/**
 * The answer of POST /api/access/invitations/accept: the membership now held and, when the
 * invitee has no credential that works on the site, an API key for it (its secret shown once).
 */
export const InvitationAccepted = z
  .object({
    ok: z.literal(true),
    member: Member,
    apiKey: ApiKeyCreated.optional(),
  })
  .meta({ id: 'InvitationAccepted' });
export type InvitationAccepted = z.infer<typeof InvitationAccepted>;
