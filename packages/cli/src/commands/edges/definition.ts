import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { edgesRemove } from './edges';

/** `cms edges rm` */
export function defineEdgesCommands(program: Command, { action }: CommandKit): void {
  const edges = program
    .command('edges')
    .description('Relationship edges between items (add them with cms import edges)');
  subcommand(
    edges,
    'rm',
    'Remove a relationship edge between two items',
    [
      'cms edges rm book:1984 WRITTEN_BY author:huxley',
      'cms edges rm country:gm IN_REGION region:europe --json',
    ],
    `Removing an edge that does not exist changes nothing (exit 0). Any edge between two items can
be removed, declared or not, except the only target of a required relationship: point the
item elsewhere first (cms content update, or cms import edges after removing).`,
  )
    .argument('<from>', 'the source item id <type>:<slug>')
    .argument('<edge>', 'the edge label, e.g. WRITTEN_BY')
    .argument('<to>', 'the target item id <type>:<slug>')
    .action(
      action(async (context, [from, edge, to]) =>
        edgesRemove({ site: await context.site(), out: context.out, from: from!, edge: edge!, to: to! }),
      ),
    );
}
