import type { Command } from 'commander';
import { type CommandKit, subcommand, toTime } from '../command-kit';
import { live } from './live';

export interface LiveFlags {
  env: string;
  at?: string;
}

/** `cms live --env e [--at T]` */
export function defineLiveCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'live',
    'List every item live in an environment (now, or at a time) at its version, and what put it there',
    [
      'cms live --env prod',
      'cms live --env prod --at -2h',
      'cms live --env prod --at 2026-05-01T09:00:00Z --json',
    ],
    'CAUSE is publish, deployment, rollback or import; RELEASE is the release that put the version live, if any.',
  )
    .requiredOption('--env <name>', 'environment, e.g. prod')
    .option('--at <time>', 'the moment: ISO date-time with a zone, now, +10m, -2h (default: now)', toTime)
    .action(
      action<LiveFlags>(async (context, _args, options) =>
        live({ site: await context.site(), out: context.out, env: options.env, at: options.at }),
      ),
    );
}
