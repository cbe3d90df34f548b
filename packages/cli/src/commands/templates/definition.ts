import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { templatesDelete, templatesList, templatesPull, templatesPush, templatesVersions } from './templates';

/** `cms templates list|push|pull|versions|delete` */
export function defineTemplatesCommands(program: Command, { io, action }: CommandKit): void {
  const templates = program.command('templates').description('Liquid templates of the site');
  subcommand(templates, 'list', 'List templates', 'cms templates list').action(
    action(async (context) => templatesList({ site: await context.site(), out: context.out })),
  );
  subcommand(
    templates,
    'push',
    'Upload every <name>.liquid of a folder (new versions only where changed)',
    'cms templates push ./templates',
  )
    .argument('<dir>', 'folder of .liquid files (optional templates.json: {"<name>": {"boundType": "post"}})')
    .option('--dry-run', 'read only: say what would be created or updated')
    .action(
      action<{ dryRun?: boolean }>(async (context, [dir], options) =>
        templatesPush({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          dir: dir!,
          dryRun: options.dryRun === true,
        }),
      ),
    );
  subcommand(templates, 'pull', 'Download every template into a folder', 'cms templates pull ./templates')
    .argument('<dir>', 'folder to write')
    .action(
      action(async (context, [dir]) =>
        templatesPull({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          dir: dir!,
        }),
      ),
    );
  subcommand(
    templates,
    'versions',
    "Show a template's version and latest version",
    'cms templates versions page',
  )
    .argument('<name>', 'template name')
    .action(
      action(async (context, [name]) =>
        templatesVersions({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(
    templates,
    'delete',
    'Delete a template and all its versions (alias rm)',
    'cms templates delete old-sidebar',
    `A template in use is refused (409 in_use) and its users are listed: routes, views and block
types that render with it, transforms that run it, templates, widgets and page kits that
include, render or extend it, and the types whose pages it renders (disable it first to let
another template take over). Templates have no cascade.`,
  )
    .alias('rm')
    .argument('<name>', 'template name')
    .action(
      action(async (context, [name]) =>
        templatesDelete({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
}
