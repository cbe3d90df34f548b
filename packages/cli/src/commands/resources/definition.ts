import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { RESOURCE_GROUPS, resourcesApply, resourcesDelete, resourcesGet, resourcesList } from './resources';

/** `cms views|transforms|block-types|widgets|page-kits list|get|apply|delete` (scripts have their own group) */
export function defineResourceCommands(program: Command, { io, action }: CommandKit): void {
  for (const group of RESOURCE_GROUPS) {
    const command = program.command(group.name).description(group.description);
    subcommand(command, 'list', `List the ${group.noun}s`, `cms ${group.name} list`).action(
      action(async (context) => resourcesList({ site: await context.site(), out: context.out, group })),
    );
    subcommand(command, 'get', `Show a ${group.noun} as JSON`, `cms ${group.name} get <${group.key}>`)
      .argument(`<${group.key}>`, `the ${group.noun}'s ${group.key}`)
      .action(
        action(async (context, [key]) =>
          resourcesGet({ site: await context.site(), out: context.out, group, key: key! }),
        ),
      );
    subcommand(
      command,
      'apply',
      `Create or update ${group.noun}s from a JSON file or a folder of them (idempotent)`,
      [`cms ${group.name} apply ${group.name}.json --dry-run`, `cms ${group.name} apply ./${group.name}/`],
    )
      .argument(
        '<file-or-folder>',
        `a .json file (one ${group.noun}, an array, or {"${group.api}": [...]}) or a folder of .json files`,
      )
      .option('--dry-run', 'read only: say what would be created or updated')
      .action(
        action<{ dryRun?: boolean }>(async (context, [target], options) =>
          resourcesApply({
            site: await context.site(),
            out: context.out,
            io,
            group,
            target: target!,
            dryRun: options.dryRun === true,
          }),
        ),
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
