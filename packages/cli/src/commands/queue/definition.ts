import type { Command } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import { queue } from './queue';

export interface QueueFlags {
  env?: string;
  limit?: number;
  offset?: number;
}

/** `cms queue` */
export function defineQueueCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'queue',
    'List scheduled deployments (pending, due in the future), soonest first',
    ['cms queue', 'cms queue --env prod --limit 20 --json'],
    'A scheduled deployment shows the build made ahead of its time (BUILD) once it is ready, or the error of its last attempt (NOTE).',
  )
    .option('--env <name>', 'only this environment, e.g. prod')
    .option('--limit <n>', 'how many (default 100, at most 1000)', toPositiveInt)
    .option('--offset <n>', 'how many of the soonest to skip', toNonNegativeInt)
    .action(
      action<QueueFlags>(async (context, _args, options) =>
        queue({
          site: await context.site(),
          out: context.out,
          env: options.env,
          limit: options.limit,
          offset: options.offset,
        }),
      ),
    );
}
