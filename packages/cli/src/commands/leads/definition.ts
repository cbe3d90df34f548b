import type { Command } from 'commander';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { leadsExport, leadsList, leadsRemove } from './leads';

export interface LeadsListFlags {
  limit?: number;
  offset?: number;
}

/** `cms leads list|export|rm` */
export function defineLeadsCommands(program: Command, { io, action }: CommandKit): void {
  const leads = program
    .command('leads')
    .description('Leads: what visitors sent through the forms of the published site (editors and above)');
  subcommand(leads, 'list', 'List leads, newest first', [
    'cms leads list',
    'cms leads list --limit 20 --offset 20',
  ])
    .option('--limit <n>', 'at most this many (default 50, at most 1000)', toPositiveInt)
    .option('--offset <n>', 'skip this many', (value: string) => Number.parseInt(value, 10))
    .action(
      action<LeadsListFlags>(async (context, _args, options) =>
        leadsList({
          site: await context.site(),
          out: context.out,
          limit: options.limit,
          offset: options.offset,
        }),
      ),
    );
  subcommand(
    leads,
    'export',
    'Export every lead as CSV',
    ['cms leads export leads.csv', 'cms leads export > leads.csv'],
    'Cells that a spreadsheet would read as a formula are prefixed with an apostrophe.',
  )
    .argument('[file]', 'where to write the CSV (default: stdout)')
    .action(
      action(async (context, [file]) =>
        leadsExport({ site: await context.site(), out: context.out, io, file }),
      ),
    );
  subcommand(leads, 'rm', 'Delete a lead', 'cms leads rm lead:0b6f…')
    .argument('<id>', 'lead id (lead:<uuid>)')
    .action(
      action(async (context, [id]) => leadsRemove({ site: await context.site(), out: context.out, id: id! })),
    );
}
