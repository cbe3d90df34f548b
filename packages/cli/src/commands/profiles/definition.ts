import type { Command } from 'commander';
import { type CommandKit, group, subcommand } from '../command-kit';
import { profilesList, profilesRemove, profilesUse } from './profiles';

/** `cms profiles list|use|remove` */
export function defineProfilesCommands(program: Command, { io, action }: CommandKit): void {
  const profiles = group(
    program,
    'profiles',
    'Saved connections (server URL, key, default site) of the config file',
    ['cms profiles list', 'cms profiles use prod'],
  );
  subcommand(profiles, 'list', 'List the profiles, the current one marked *', 'cms profiles list').action(
    action(async (context) => profilesList({ io, out: context.out, configFile: context.configFile })),
  );
  subcommand(profiles, 'use', 'Make a profile the current one', 'cms profiles use prod')
    .argument('<name>', 'profile name')
    .action(
      action(async (context, [name]) =>
        profilesUse({ io, out: context.out, configFile: context.configFile, name: name! }),
      ),
    );
  subcommand(profiles, 'remove', 'Forget a profile and its key (alias rm)', 'cms profiles remove old-staging')
    .alias('rm')
    .argument('<name>', 'profile name')
    .action(
      action(async (context, [name]) =>
        profilesRemove({ io, out: context.out, configFile: context.configFile, name: name! }),
      ),
    );
}
