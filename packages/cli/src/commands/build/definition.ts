import { BuildMode, OutputChannel } from '@trelliscms/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { build } from './build';

export interface BuildFlags {
  env?: string;
  mode?: BuildMode;
  async?: boolean;
  dryRun?: boolean;
  channels?: OutputChannel[];
  /** Milliseconds; 1000 unless given. */
  pollInterval: number;
}

/** `cms build` */
export function defineBuildCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'build',
    'Build and deploy the site (sync, or --async following its status)',
    'cms build --env dev --mode full --async',
  )
    .option('--env <name>', 'environment, e.g. dev or prod')
    .addOption(new Option('--mode <mode>', 'build mode').choices(BuildMode.options))
    .option('--async', 'start the build in the background and follow its status to the end')
    .option('--dry-run', 'validate only: render in memory, deploy nothing')
    .option(
      '--channels <list>',
      `what the build emits, comma-separated (${OutputChannel.options.join(', ')}); default all`,
      toChannels,
    )
    .option('--poll-interval <ms>', 'with --async: ms between status reads', toPositiveInt, 1000)
    .action(
      action<BuildFlags>(async (context, _args, options) =>
        build({
          site: await context.site(),
          out: context.out,
          env: options.env,
          mode: options.mode,
          async: options.async === true,
          dryRun: options.dryRun === true,
          channels: options.channels,
          pollIntervalMs: options.pollInterval,
        }),
      ),
    );
}

/** `--channels pages,search` → the channels, each one checked. */
function toChannels(value: string): OutputChannel[] {
  const channels = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const channel of channels) {
    if (!OutputChannel.safeParse(channel).success) {
      throw new InvalidArgumentError(`"${channel}" is not a channel (${OutputChannel.options.join(', ')})`);
    }
  }
  return channels as OutputChannel[];
}
