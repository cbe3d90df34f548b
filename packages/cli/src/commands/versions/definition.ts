import type { Command } from 'commander';
import { type CommandKit, group, subcommand, toPositiveInt } from '../command-kit';
import { versionsList, versionsRestore, versionsShow } from './versions';

/** `cms versions list|show|restore` */
export function defineVersionsCommands(program: Command, { action }: CommandKit): void {
  const versions = group(program, 'versions', 'Recorded versions of an item: list, show, restore', [
    'cms versions list post hello',
    'cms versions restore post hello 3 --dry-run',
  ]);
  subcommand(versions, 'list', 'List the versions of an item, newest first', 'cms versions list post hello')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .action(
      action(async (context, [type, id]) =>
        versionsList({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  subcommand(versions, 'show', 'Show one version with its fields', 'cms versions show post hello 3')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .argument('<version>', 'version number', toPositiveInt)
    .action(
      action(async (context, [type, id, version]) =>
        versionsShow({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          version: version as unknown as number,
        }),
      ),
    );
  subcommand(
    versions,
    'restore',
    "Write an earlier version's fields as a new version (--dry-run shows what would change)",
    ['cms versions restore post hello 3 --dry-run', 'cms versions restore post hello 3'],
    `Only the fields that differ are written (fields the version lacked are cleared), guarded by
the current version so a concurrent edit is not lost (409). The block body is not restored.
The item is not published: run cms content publish after.`,
  )
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .argument('<version>', 'version to restore', toPositiveInt)
    .option('--dry-run', 'show which fields would change, write nothing')
    .action(
      action<{ dryRun?: boolean }>(async (context, [type, id, version], options) =>
        versionsRestore({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          version: version as unknown as number,
          dryRun: options.dryRun === true,
        }),
      ),
    );
}
