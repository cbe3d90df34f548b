import type { Command } from 'commander';
import { UsageError } from '../../errors';
import { type CommandKit, subcommand, toPositiveInt } from '../command-kit';
import { bugsList, bugsReport } from './bugs';

export interface BugsReportFlags {
  requestId?: string;
  context?: string;
}

export interface BugsListFlags {
  limit?: number;
  requestId?: string;
}

function contextOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError('--context must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError('--context must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** `cms bugs report|list` */
export function defineBugsCommands(program: Command, { action }: CommandKit): void {
  const bugs = program
    .command('bugs')
    .description('Problem reports, matched to the server log by request id');
  subcommand(
    bugs,
    'report',
    'Report a problem (anyone signed in)',
    [
      'cms bugs report "Publishing hangs" --request-id 6f1c…',
      'cms bugs report "Slow list" --context \'{"page":"/types"}\'',
    ],
    'The request id is the X-Request-Id of the answer that went wrong (the CLI prints it with server errors); the server log lines of that request carry the same id.',
  )
    .argument('<message>', 'what went wrong')
    .option('--request-id <id>', 'the X-Request-Id of the failed answer')
    .option('--context <json>', 'a JSON object with details (at most 16 KiB)')
    .action(
      action<BugsReportFlags>(async (context, [message], options) =>
        bugsReport({
          client: await context.client(),
          out: context.out,
          message: message!,
          requestId: options.requestId,
          context: contextOf(options.context),
        }),
      ),
    );
  subcommand(bugs, 'list', 'List reports, newest first (platform admins)', [
    'cms bugs list',
    'cms bugs list --request-id 6f1c…',
  ])
    .option('--limit <n>', 'at most this many (default 50)', toPositiveInt)
    .option('--request-id <id>', 'only the reports of this request')
    .action(
      action<BugsListFlags>(async (context, _args, options) =>
        bugsList({
          client: await context.client(),
          out: context.out,
          limit: options.limit,
          requestId: options.requestId,
        }),
      ),
    );
}
