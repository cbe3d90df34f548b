import type { Command } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import { queriesCreate, queriesDelete, queriesList, queriesRun, queriesShow, queriesUpdate } from './queries';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `cms queries list|show|create|update|rm|run` */
export function defineQueriesCommands(program: Command, { io, action }: CommandKit): void {
  const queries = program
    .command('queries')
    .description(
      'Saved graph queries of the site (docs/queries.md): store them, run them, use them in templates',
    );
  subcommand(queries, 'list', 'List saved queries', 'cms queries list').action(
    action(async (context) => queriesList({ site: await context.site(), out: context.out })),
  );
  subcommand(queries, 'show', 'Show a saved query as JSON', 'cms queries show recent-posts')
    .argument('<name>', 'query name')
    .action(
      action(async (context, [name]) =>
        queriesShow({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(
    queries,
    'create',
    'Store a saved query from a JSON file',
    ['cms queries create recent-posts.json', 'cms queries create q.json --name recent-posts'],
    'The file holds {"name", "description", "query": {"type", "where", "sort", "follow", "select", "limit"}, "params": {"since": {"type": "number", "required": true}}}. The server checks it against the site\'s types (400 invalid_query).',
  )
    .argument('<file>', 'a .json file with one saved query')
    .option('--name <name>', 'the query name (instead of the file\'s "name")')
    .action(
      action<{ name?: string }>(async (context, [file], options) =>
        queriesCreate({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          file: file!,
          name: options.name,
        }),
      ),
    );
  subcommand(
    queries,
    'update',
    'Replace the query, params or description of a saved query from a JSON file',
    'cms queries update recent-posts recent-posts.json',
  )
    .argument('<name>', 'query name')
    .argument('<file>', 'a .json file with the keys to replace')
    .action(
      action(async (context, [name, file]) =>
        queriesUpdate({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          name: name!,
          file: file!,
        }),
      ),
    );
  subcommand(queries, 'rm', 'Delete a saved query (alias delete)', 'cms queries rm recent-posts')
    .alias('delete')
    .argument('<name>', 'query name')
    .action(
      action(async (context, [name]) =>
        queriesDelete({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  subcommand(
    queries,
    'run',
    'Run a saved query and show its rows',
    [
      'cms queries run recent-posts --param since=2021 --param tag=web',
      'cms queries run recent-posts --param since=2021 --limit 10 --json',
    ],
    "Each --param name=value is typed by the query's declared parameters (a number, true/false, or text); a value that does not fit is refused (400 invalid_query_params).",
  )
    .argument('<name>', 'query name')
    .option('--param <name=value>', 'a parameter value (repeat for several)', collect, [] as string[])
    .option('--limit <n>', "rows per page (1 to 1000; default the query's)", toPositiveInt)
    .option('--offset <n>', 'rows to skip', toNonNegativeInt)
    .action(
      action<{ param: string[]; limit?: number; offset?: number }>(async (context, [name], options) =>
        queriesRun({
          site: await context.site(),
          out: context.out,
          name: name!,
          params: options.param,
          limit: options.limit,
          offset: options.offset,
        }),
      ),
    );
}
