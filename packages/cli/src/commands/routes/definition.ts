import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { routesApply, routesList } from './routes';

/** `cms routes list|apply` */
export function defineRoutesCommands(program: Command, { io, action }: CommandKit): void {
  const routes = program
    .command('routes')
    .description('Hand-made URLs of the site: pages, listings, redirects');
  subcommand(routes, 'list', 'List routes', 'cms routes list').action(
    action(async (context) => routesList({ site: await context.site(), out: context.out })),
  );
  subcommand(
    routes,
    'apply',
    'Create or update routes from a JSON file or a folder of them (idempotent)',
    'cms routes apply routes.json',
  )
    .argument(
      '<file-or-folder>',
      'a .json file (one route, an array, or {"routes": [...]}) or a folder of .json files',
    )
    .action(
      action(async (context, [target]) =>
        routesApply({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          target: target!,
        }),
      ),
    );
}
