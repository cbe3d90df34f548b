import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { health } from './health';

export interface HealthFlags {
  detail?: boolean;
}

/** `cms health [--detail]` */
export function defineHealthCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'health',
    'Check the server (and with --detail the graph engine)',
    'cms health --detail',
  )
    .option('--detail', 'probe the engine too')
    .action(
      action<HealthFlags>(async (context, _args, options) =>
        health({ client: await context.client(), out: context.out, detail: options.detail === true }),
      ),
    );
}
