import type { Command } from 'commander';
import { type CommandKit, subcommand, toTime } from '../command-kit';
import { replay } from './replay';

export interface ReplayFlags {
  env: string;
  at?: string;
}

/** `cms replay --env e --at T` */
export function defineReplayCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'replay',
    'Show what was (or will be) live in an environment at a time: the deployment, its release and items',
    [
      'cms replay --env prod --at -1d',
      'cms replay --env prod --at 2026-05-01T09:00:00Z',
      'cms replay --env prod --at +3d',
    ],
    'A future --at counts the scheduled deployments due by then (see cms queue).',
  )
    .requiredOption('--env <name>', 'environment, e.g. prod')
    .option('--at <time>', 'the moment: ISO date-time with a zone, now, +10m, -2h (default: now)', toTime)
    .action(
      action<ReplayFlags>(async (context, _args, options) =>
        replay({ site: await context.site(), out: context.out, env: options.env, at: options.at }),
      ),
    );
}
