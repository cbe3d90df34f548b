import { GrantRole, MemberRole } from '@trelliscms/core';
import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { type CommandKit, orList, subcommand, toPositiveInt, toTime } from '../command-kit';
import {
  membersAccept,
  membersCancelInvite,
  membersFind,
  membersGrant,
  membersInvitations,
  membersInvite,
  membersList,
  membersRevoke,
  membersRole,
} from './members';

export interface MembersFindFlags {
  limit?: number;
}

export interface MembersInviteFlags {
  name?: string;
  expires?: string;
}

const isGrantRole = (role: string): role is GrantRole =>
  (GrantRole.options as readonly string[]).includes(role);
const isMemberRole = (role: string): role is MemberRole =>
  (MemberRole.options as readonly string[]).includes(role);

/** `cms members list|grant|role|revoke|find|invite|invitations|cancel-invite|accept` */
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
  subcommand(
    members,
    'find',
    'Find a platform user to grant access to (admin only)',
    ['cms members find ada@example.org', 'cms members find ada'],
    'Platform owners and admins match any part of a name or e-mail; site admins an exact e-mail address.',
  )
    .argument('<query>', 'an e-mail address, or part of a name or e-mail (platform admins)')
    .option('--limit <n>', 'at most this many (default and maximum 20)', toPositiveInt)
    .action(
      action<MembersFindFlags>(async (context, [query], options) =>
        membersFind({ site: await context.site(), out: context.out, query: query!, limit: options.limit }),
      ),
    );
  subcommand(
    members,
    'invite',
    'Invite someone by e-mail; prints the one-time token to send them (admin only)',
    'cms members invite ada@example.org editor --name "Ada Lovelace"',
    'The invitee redeems the token with `cms members accept <token>`: with their own key (or an ID token) the role is theirs; without a key a user is created and a key for the site is printed once. Invitations last 7 days unless --expires says otherwise (at most 90 days).',
  )
    .argument('<email>', 'e-mail address of the invitee')
    .argument('<role>', orList(MemberRole.options))
    .option('--name <name>', 'display name of the invitee')
    .option('--expires <time>', 'when the invitation lapses (ISO with a zone, or e.g. +3d)', toTime)
    .action(
      action<MembersInviteFlags>(async (context, [email, role], options) => {
        if (!isMemberRole(role!)) throw new UsageError(`role must be ${orList(MemberRole.options)}`);
        return membersInvite({
          site: await context.site(),
          out: context.out,
          body: { email: email!, role, name: options.name, expiresAt: options.expires },
        });
      }),
    );
  subcommand(
    members,
    'invitations',
    'List the open invitations (admin only)',
    'cms members invitations',
  ).action(action(async (context) => membersInvitations({ site: await context.site(), out: context.out })));
  subcommand(
    members,
    'cancel-invite',
    'Cancel an open invitation (admin only)',
    'cms members cancel-invite invite:0123456789ab',
  )
    .argument('<id>', 'invitation id')
    .action(
      action(async (context, [id]) =>
        membersCancelInvite({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
  subcommand(members, 'accept', 'Redeem an invitation token (no site needed; with or without a key)', [
    'cms members accept ti_… --url https://cms.example.org',
    'cms members accept ti_… --key $CMS_API_KEY',
  ])
    .argument('<token>', 'the token the invitation came with')
    .action(
      action(async (context, [token]) =>
        membersAccept({ client: await context.client(), out: context.out, token: token! }),
      ),
    );
}
