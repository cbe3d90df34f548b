import type { Command } from 'commander';
import { type CommandKit, group, subcommand } from '../command-kit';
import { maintenanceEmbeddings, maintenanceProcedures } from './maintenance';

/** `cms maintenance embeddings|procedures` */
export function defineMaintenanceCommands(program: Command, { action }: CommandKit): void {
  const maintenance = group(
    program,
    'maintenance',
    'Maintenance of the site: embeddings, engine procedures',
    ['cms maintenance embeddings post', 'cms maintenance procedures'],
  );
  subcommand(
    maintenance,
    'embeddings',
    "Compute the missing embeddings of a type's items (admins; safe to run again)",
    'cms maintenance embeddings post',
    'Run it after a bulk import when {% similar %} finds nothing.',
  )
    .argument('<type>', 'content type name')
    .action(
      action(async (context, [type]) =>
        maintenanceEmbeddings({ site: await context.site(), out: context.out, type: type! }),
      ),
    );
  subcommand(
    maintenance,
    'procedures',
    'List what the graph engine offers (admins)',
    'cms maintenance procedures',
  ).action(
    action(async (context) => maintenanceProcedures({ site: await context.site(), out: context.out })),
  );
}
