import { ContentStatus } from '@trelliscms/core';
import { type Command, Option } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { type PublishDirection, publish } from './publish';

export interface PublishFlags {
  type?: string;
  status?: ContentStatus;
  q?: string;
  env?: string;
}

const EXAMPLES: Record<PublishDirection, string[]> = {
  publish: [
    'cms publish post hello-world',
    'cms publish post hello-world spring-is-here post:summer --env staging',
    'cms publish --type post --status draft',
    'cms publish --type post --q "spring" --env prod',
  ],
  unpublish: [
    'cms unpublish post hello-world',
    'cms unpublish post old-1 old-2 --env staging',
    'cms unpublish --type post --q "2019"',
  ],
};

const DETAILS: Record<PublishDirection, string> = {
  publish: `Puts each item's current version live in the environment (no new version is made). One
item uses its own route; many ids or --type go in one request and one live revision.
--env defaults to the lowest-order environment above dev (prod, unless others were added).`,
  unpublish: `Takes the items out of the environment's live state; the items and their versions stay.
One item uses its own route; many ids or --type go in one request and one live revision.
--env defaults to the lowest-order environment above dev (prod, unless others were added).`,
};

/** `cms publish` and `cms unpublish`: one item, many ids, or by query. */
export function definePublishCommands(program: Command, { action }: CommandKit): void {
  for (const direction of ['publish', 'unpublish'] as const) {
    subcommand(
      program,
      direction,
      direction === 'publish'
        ? 'Publish items to an environment: one, many ids, or every item of a type matching a query'
        : 'Unpublish items from an environment: one, many ids, or every item of a type matching a query',
      EXAMPLES[direction],
      DETAILS[direction],
    )
      .argument('[type]', 'type name of the items named by <id>')
      .argument('[ids...]', 'item ids <type>:<slug>, or slugs')
      .option('--type <type>', 'every item of this type (instead of ids)')
      .addOption(
        new Option('--status <status>', 'with --type: only items with this workflow status').choices(
          ContentStatus.options,
        ),
      )
      .option('--q <text>', 'with --type: only items matching this full-text search')
      .option('--env <name>', "environment (the server's default: prod)")
      .action(
        action<PublishFlags>(async (context, [type, ids], options) =>
          publish({
            site: await context.site(),
            out: context.out,
            direction,
            type,
            ids: (ids as unknown as string[] | undefined) ?? [],
            byType: options.type,
            status: options.status,
            q: options.q,
            env: options.env,
          }),
        ),
      );
  }
}
