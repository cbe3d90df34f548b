import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { RESOURCE_GROUPS, resourcesDelete, resourcesList } from './resources';

/** `cms views|transforms|block-types|widgets|page-kits list|delete` (scripts have their own group) */
export function defineResourceCommands(program: Command, { action }: CommandKit): void {
  for (const group of RESOURCE_GROUPS) {
    const command = program.command(group.name).description(group.description);
    subcommand(command, 'list', `List the ${group.noun}s`, `cms ${group.name} list`).action(
      action(async (context) => resourcesList({ site: await context.site(), out: context.out, group })),
    );
    const remove = subcommand(
      command,
      'delete',
      `Delete a ${group.noun} (alias rm)`,
      group.hasCascade
        ? [`cms ${group.name} delete <${group.key}>`, `cms ${group.name} delete <${group.key}> --cascade`]
        : `cms ${group.name} delete <${group.key}>`,
      group.holders ?? `Nothing else names a ${group.noun}, so it can always be deleted.`,
    )
      .alias('rm')
      .argument(`<${group.key}>`, `the ${group.noun}'s ${group.key}`);
    if (group.hasCascade) remove.option('--cascade', 'delete what holds it too');
    remove.action(
      action<{ cascade?: boolean }>(async (context, [key], options) =>
        resourcesDelete({
          site: await context.site(),
          out: context.out,
          group,
          key: key!,
          cascade: options.cascade === true,
        }),
      ),
    );
  }
}
