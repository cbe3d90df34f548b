import { BuildMode } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { build } from './build';

export interface BuildFlags {
  env?: string;
  mode?: BuildMode;
  async?: boolean;
  dryRun?: boolean;
  /** Milliseconds; 1000 unless given. */
  pollInterval: number;
}

/** `cms build` */
export function defineBuildCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'build',
    'Build and deploy the site, showing its phases and counts (Ctrl-C cancels it)',
    'cms build --env dev --mode full',
  )
    .option('--env <name>', 'environment, e.g. dev or prod')
    .addOption(new Option('--mode <mode>', 'build mode').choices(BuildMode.options))
    .option('--async', 'kept for scripts: every build is started in the background and followed to its end')
    .option('--dry-run', 'validate only: render in memory, deploy nothing')
    .option('--poll-interval <ms>', 'ms between status reads while following a build', toPositiveInt, 500)
    .action(
      action<BuildFlags>(async (context, _args, options) =>
        build({
          site: await context.site(),
          out: context.out,
          io: context.io,
          env: options.env,
          mode: options.mode,
          async: options.async === true,
          dryRun: options.dryRun === true,
          pollIntervalMs: options.pollInterval,
        }),
      ),
    );
}
