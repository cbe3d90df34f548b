import { GrantRole, MemberRole } from '@trelliscms/core';
import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { type CommandKit, orList, subcommand } from '../command-kit';
import { membersGrant, membersList, membersRevoke, membersRole } from './members';

const isGrantRole = (role: string): role is GrantRole =>
  (GrantRole.options as readonly string[]).includes(role);
const isMemberRole = (role: string): role is MemberRole =>
  (MemberRole.options as readonly string[]).includes(role);

/** `cms members list|grant|role|revoke` */
export function defineMembersCommands(program: Command, { action }: CommandKit): void {
  const members = program.command('members').description('Members of the site and their roles');
  subcommand(members, 'list', 'List members', 'cms members list').action(
    action(async (context) => membersList({ site: await context.site(), out: context.out })),
  );
  subcommand(
    members,
    'grant',
    'Give a user access to the site (admin only)',
    'cms members grant user:ada editor',
  )
    .argument('<userId>', 'user id')
    .argument('<role>', orList(GrantRole.options))
    .action(
      action(async (context, [userId, role]) => {
        if (!isGrantRole(role!)) throw new UsageError(`role must be ${orList(GrantRole.options)}`);
        return membersGrant({ site: await context.site(), out: context.out, userId: userId!, role });
      }),
    );
  subcommand(members, 'role', "Change a member's role", 'cms members role user:ada publisher')
    .argument('<userId>', 'user id')
    .argument('<role>', orList(MemberRole.options))
    .action(
      action(async (context, [userId, role]) => {
        if (!isMemberRole(role!)) throw new UsageError(`role must be ${orList(MemberRole.options)}`);
        return membersRole({ site: await context.site(), out: context.out, userId: userId!, role });
      }),
    );
  subcommand(members, 'revoke', "Remove a user's access to the site", 'cms members revoke user:ada')
    .argument('<userId>', 'user id')
    .action(
      action(async (context, [userId]) =>
        membersRevoke({ site: await context.site(), out: context.out, userId: userId! }),
      ),
    );
}
