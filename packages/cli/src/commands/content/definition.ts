import { ContentStatus } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import {
  contentCreate,
  contentDelete,
  contentGet,
  contentList,
  contentPublish,
  contentUpdate,
  contentVersions,
  readItemBody,
} from './content';

export interface ContentListFlags {
  limit?: number;
  offset?: number;
  q?: string;
  status?: ContentStatus;
  where?: string;
  sort?: string;
  all?: boolean;
}

/** `--data` or `--file`: the item (or the fields to change) of a write. */
export interface ContentWriteFlags {
  data?: string;
  file?: string;
}

export interface ContentPublishFlags {
  env?: string;
}

/** `cms content list|get|create|update|delete|versions|publish` */
export function defineContentCommands(program: Command, { io, action }: CommandKit): void {
  const content = program.command('content').description('Content items of the site');
  subcommand(
    content,
    'list',
    'List items of a type (a page with the total, or --all)',
    [
      'cms content list post --status published --limit 20',
      `cms content list book --where "year >= 2000 and tags contains 'sf'" --sort -year,title`,
      'cms content list book --limit 20 --offset 40',
    ],
    `--where and --sort are the list language of {% list %}: conditions <field> <op> <value>
joined by "and" (op one of == != > >= < <= contains; quote text values), and sort keys
separated by commas with - for descending. Fields are the type's, plus status, createdAt,
updatedAt.`,
  )
    .argument('<type>', 'type name')
    .option('--limit <n>', 'items per page (default 50)', toPositiveInt)
    .option('--offset <n>', 'items to skip', toNonNegativeInt)
    .option('--q <text>', 'full-text search')
    .addOption(new Option('--status <status>', 'workflow status').choices(ContentStatus.options))
    .option('--where <conditions>', `field conditions, e.g. "year >= 2000 and featured == true"`)
    .option('--sort <keys>', 'sort keys, e.g. -year,title (- for descending)')
    .option('--all', 'fetch every match, page by page')
    .action(
      action<ContentListFlags>(async (context, [type], options) =>
        contentList({
          site: await context.site(),
          out: context.out,
          type: type!,
          limit: options.limit,
          offset: options.offset,
          q: options.q,
          status: options.status,
          where: options.where,
          sort: options.sort,
          all: options.all === true,
        }),
      ),
    );
  subcommand(content, 'get', 'Show an item', 'cms content get post hello-world')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id <type>:<slug>, or the slug')
    .action(
      action(async (context, [type, id]) =>
        contentGet({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  subcommand(
    content,
    'create',
    'Create an item',
    `cms content create post --data '{"slug":"hello","title":"Hello"}'`,
  )
    .argument('<type>', 'type name')
    .option('--data <json>', 'the item: {"field": value, ...} or {"fields": {...}, "relationships": {...}}')
    .option('--file <path>', 'read the item from a JSON file')
    .action(
      action<ContentWriteFlags>(async (context, [type], options) =>
        contentCreate({
          site: await context.site(),
          out: context.out,
          type: type!,
          body: await readItemBody({ io, data: options.data, file: options.file }),
        }),
      ),
    );
  subcommand(
    content,
    'update',
    'Update fields of an item',
    `cms content update post hello --data '{"title":"Hello again"}'`,
  )
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .option('--data <json>', 'the fields to change')
    .option('--file <path>', 'read the fields from a JSON file')
    .action(
      action<ContentWriteFlags>(async (context, [type, id], options) =>
        contentUpdate({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          body: await readItemBody({ io, data: options.data, file: options.file }),
        }),
      ),
    );
  subcommand(content, 'delete', 'Delete an item', 'cms content delete post hello')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .action(
      action(async (context, [type, id]) =>
        contentDelete({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  subcommand(content, 'versions', 'List the recorded versions of an item', 'cms content versions post hello')
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .action(
      action(async (context, [type, id]) =>
        contentVersions({ site: await context.site(), out: context.out, type: type!, id: id! }),
      ),
    );
  subcommand(
    content,
    'publish',
    'Publish an item to an environment',
    'cms content publish post hello --env prod',
  )
    .argument('<type>', 'type name')
    .argument('<id>', 'item id or slug')
    .option('--env <name>', "environment to publish to (the server's default: prod)")
    .action(
      action<ContentPublishFlags>(async (context, [type, id], options) =>
        contentPublish({
          site: await context.site(),
          out: context.out,
          type: type!,
          id: id!,
          env: options.env,
        }),
      ),
    );
}
