import type { GrantRole, MemberRole } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { CommandDeps, SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms members list` */
export async function membersList({ site, out }: Deps): Promise<number> {
  const members = await site.members.list();
  out.result(members, () => table(members, ['userId', 'name', 'email', 'role', 'grantedAt']));
  return ExitCode.ok;
}

/** `cms members grant <userId> <role>`: gives a user access to the site (admin only). */
export async function membersGrant({
  site,
  out,
  userId,
  role,
}: Deps & { userId: string; role: GrantRole }): Promise<number> {
  const answer = await site.access.grant({ userId, role });
  out.result(answer, () => `Granted ${role} on ${site.id} to ${userId}.`);
  return ExitCode.ok;
}

/** `cms members role <userId> <role>`: changes a member's role. */
export async function membersRole({
  site,
  out,
  userId,
  role,
}: Deps & { userId: string; role: MemberRole }): Promise<number> {
  const member = await site.members.setRole(userId, role);
  out.result(member, () => `${member.userId} is now ${member.role} on ${site.id}.`);
  return ExitCode.ok;
}

/** `cms members revoke <userId>`: removes the user's access to the site. */
export async function membersRevoke({ site, out, userId }: Deps & { userId: string }): Promise<number> {
  const answer = await site.members.revoke(userId);
  out.result(answer, () => `Revoked ${userId}'s access to ${site.id}.`);
  return ExitCode.ok;
}

/** `cms members find <query>`: platform users to grant access to, with their role here. */
export async function membersFind({
  site,
  out,
  query,
  limit,
}: Deps & { query: string; limit?: number }): Promise<number> {
  const found = await site.access.findUsers(query, { limit });
  out.result(found, () => [
    ...table(found.items, ['userId', 'name', 'email', 'role']),
    ...(found.total > found.items.length
      ? [`${found.items.length} of ${found.total}; narrow the query`]
      : []),
  ]);
  return ExitCode.ok;
}

/** `cms members invite <email> <role>`: prints the one-time token and how the invitee redeems it. */
export async function membersInvite({
  site,
  out,
  body,
}: Deps & { body: { email: string; role: MemberRole; name?: string; expiresAt?: string } }): Promise<number> {
  const invitation = await site.access.invite(body);
  out.result(invitation, () => [
    `Invited ${invitation.email} as ${invitation.role} on ${invitation.siteId} (${invitation.id}), until ${invitation.expiresAt}.`,
    `Token (shown once; send it to the invitee): ${invitation.token}`,
    `They redeem it with: cms members accept <token> --url <server>  (signed in with --key, or without a key to get one)`,
  ]);
  return ExitCode.ok;
}

/** `cms members invitations`: the open invitations to the site. */
export async function membersInvitations({ site, out }: Deps): Promise<number> {
  const invitations = await site.access.invitations();
  out.result(invitations, () => table(invitations, ['id', 'email', 'role', 'invitedBy', 'expiresAt']));
  return ExitCode.ok;
}

/** `cms members cancel-invite <id>`: the invitation's token stops working. */
export async function membersCancelInvite({ site, out, id }: Deps & { id: string }): Promise<number> {
  await site.access.revokeInvitation(id);
  out.result({ ok: true, id }, () => `Cancelled invitation ${id}.`);
  return ExitCode.ok;
}

/**
 * `cms members accept <token>`: redeems an invitation, signed in with the configured key or
 * without one; prints the membership and, when one comes with it, the new key (once).
 */
export async function membersAccept({
  client,
  out,
  token,
}: Pick<CommandDeps, 'client' | 'out'> & { token: string }): Promise<number> {
  const accepted = await client.access.acceptInvitation(token);
  const { member, apiKey } = accepted;
  out.result(accepted, () => [
    `${member.userId} is now ${member.role} on ${member.siteId}.`,
    ...(apiKey
      ? [
          `API key ${apiKey.id} for ${member.siteId} (${apiKey.role}).`,
          `Secret (shown once, store it now): ${apiKey.secret}`,
          `Use it with: cms login --url <server> --key <secret> --site ${member.siteId}`,
        ]
      : []),
  ]);
  return ExitCode.ok;
}
