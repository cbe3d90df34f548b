import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { exportSite } from './export';

/** `cms export [file]` (alias `backup`) */
export function defineExportCommand(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'export',
    'Back up the site as one JSON snapshot: types, items, edges, templates, routes, views (alias backup)',
    ['cms export blog-2026-11-25.json', 'cms export | gzip > blog.json.gz'],
    'Without a file (or with -) the snapshot goes to stdout. Media files are not included: they live in the server data directory.',
  )
    .alias('backup')
    .argument('[file]', 'where to write the snapshot (default: stdout)')
    .action(
      action(async (context, [file]) =>
        exportSite({ site: await context.site(), out: context.out, io, file }),
      ),
    );
}
