import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { routesApply, routesDelete, routesList } from './routes';

/** `cms routes list|apply|delete` */
export function defineRoutesCommands(program: Command, { io, action }: CommandKit): void {
  const routes = program
    .command('routes')
    .description('Hand-made URLs of the site: pages, listings, redirects');
  subcommand(routes, 'list', 'List routes', 'cms routes list').action(
    action(async (context) => routesList({ site: await context.site(), out: context.out })),
  );
  subcommand(routes, 'apply', 'Create or update routes from a JSON file or a folder of them (idempotent)', [
    'cms routes apply routes.json --dry-run',
    'cms routes apply routes.json',
  ])
    .argument(
      '<file-or-folder>',
      'a .json file (one route, an array, or {"routes": [...]}) or a folder of .json files',
    )
    .option('--dry-run', 'read only: say what would be created or updated')
    .action(
      action<{ dryRun?: boolean }>(async (context, [target], options) =>
        routesApply({
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
    routes,
    'delete',
    'Delete a route (alias rm)',
    ['cms routes delete about', 'cms routes delete about --cascade'],
    'A route that redirect routes point at is refused (409 in_use); --cascade deletes those redirects with it.',
  )
    .alias('rm')
    .argument('<slug>', 'route slug')
    .option('--cascade', 'delete the redirects that point at it too')
    .action(
      action<{ cascade?: boolean }>(async (context, [slug], options) =>
        routesDelete({
          site: await context.site(),
          out: context.out,
          slug: slug!,
          cascade: options.cascade === true,
        }),
      ),
    );
}
