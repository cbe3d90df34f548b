import type { GrantRole, MemberRole } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

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
