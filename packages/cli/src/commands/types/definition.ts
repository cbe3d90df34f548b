import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { typesApply, typesDelete, typesGet, typesList } from './types';

/** `cms types list|get|apply|delete` */
export function defineTypesCommands(program: Command, { io, action }: CommandKit): void {
  const types = program.command('types').description('Content types of the site');
  subcommand(types, 'list', 'List the content types', 'cms types list').action(
    action(async (context) => typesList({ site: await context.site(), out: context.out })),
  );
  subcommand(types, 'get', 'Show a content type in full', 'cms types get post --json')
    .argument('<name>', 'type name')
    .action(
      action(async (context, [name]) =>
        typesGet({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(types, 'apply', 'Create or update types from a JSON file or a folder of them (idempotent)', [
    'cms types apply ./types/ --dry-run',
    'cms types apply ./types/',
  ])
    .argument(
      '<file-or-folder>',
      'a .json file (one type, an array, or {"types": [...]}) or a folder of .json files',
    )
    .option('--dry-run', 'read only: say what would be created or updated')
    .action(
      action<{ dryRun?: boolean }>(async (context, [target], options) =>
        typesApply({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          target: target!,
          dryRun: options.dryRun === true,
        }),
      ),
    );
  subcommand(
    types,
    'delete',
    'Delete a content type (alias rm)',
    ['cms types delete note', 'cms types delete note --cascade'],
    `A type that has items, or that other types, templates, routes, views, transforms, scripts or
block types name, is refused (409 in_use) and what holds it is listed. --cascade deletes its
items with it (taken down where they are live); the definitions that name it must be changed
first either way.`,
  )
    .alias('rm')
    .argument('<name>', 'type name')
    .option('--cascade', 'delete its items with it')
    .action(
      action<{ cascade?: boolean }>(async (context, [name], options) =>
        typesDelete({
          site: await context.site(),
          out: context.out,
          name: name!,
          cascade: options.cascade === true,
        }),
      ),
    );
}
