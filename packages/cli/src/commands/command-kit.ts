import { createClient, type SiteClient, type TrellisClient } from '@trelliscms/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { configPath, readConfig } from '../config/profiles';
import { type Connection, type GlobalFlags, resolveConnection } from '../config/resolve-connection';
import { UsageError } from '../errors';
import type { CliIo } from '../io/cli-io';
import { Output } from '../io/output';
import { parseDuration, parseTime } from '../parse/time';

/** What an action gets: parsed flags, output, and lazily the connection and clients. */
export interface ActionContext {
  io: CliIo;
  flags: GlobalFlags;
  out: Output;
  configFile: string;
  connection(): Promise<Connection>;
  client(): Promise<TrellisClient>;
  site(): Promise<SiteClient>;
}

/** An action: its positional arguments and its typed options in, an exit code out. */
export type Action<Options> = (context: ActionContext, args: string[], options: Options) => Promise<number>;

/** What a command group's definition gets to wire its commands. */
export interface CommandKit {
  io: CliIo;
  /**
   * Turns `fn` into a commander action: builds its context from the parsed command and
   * stores its exit code. `Options` is the shape of the command's own options.
   */
  action<Options = Record<string, never>>(fn: Action<Options>): (...raw: unknown[]) => Promise<void>;
}

/** The kit every definition uses; `state.exitCode` receives each action's exit code. */
export function createCommandKit(io: CliIo, state: { exitCode: number }): CommandKit {
  const makeContext = (command: Command): ActionContext => {
    const flags = command.optsWithGlobals<GlobalFlags>();
    const out = new Output({ stdout: io.stdout, stderr: io.stderr, json: flags.json === true });
    const configFile = configPath(io.env);
    let connection: Promise<Connection> | undefined;
    let client: Promise<TrellisClient> | undefined;
    const context: ActionContext = {
      io,
      flags,
      out,
      configFile,
      connection: () => {
        connection ??= readConfig(io.fs, configFile).then((config) =>
          resolveConnection({ flags, env: io.env, config }),
        );
        return connection;
      },
      client: () => {
        client ??= context.connection().then((resolved) =>
          createClient({
            baseUrl: resolved.url,
            apiKey: resolved.key,
            fetch: io.fetch,
            // A rate limit (or a busy server) is waited out; say so, or a person thinks it hangs.
            onRetryWait: (wait) =>
              io.stderr.write(
                `${wait.status === 429 ? 'Rate limited by the server' : 'The server is busy'} (${wait.status}): waiting ${Math.ceil(wait.waitMs / 1000)} s before retrying ${wait.method} ${new URL(wait.url).pathname}…\n`,
              ),
          }),
        );
        return client;
      },
      site: async () => {
        const resolved = await context.connection();
        if (!resolved.site) {
          throw new UsageError('No site: pass --site site:<slug>, set CMS_SITE, or run cms sites use <id>.');
        }
        return (await context.client()).site(resolved.site);
      },
    };
    return context;
  };
  return {
    io,
    action:
      <Options>(fn: Action<Options>) =>
      async (...raw: unknown[]) => {
        // commander calls an action with the arguments, the options, then the command.
        const command = raw[raw.length - 1] as Command;
        const options = raw[raw.length - 2] as Options;
        const args = raw.slice(0, -2) as string[];
        state.exitCode = await fn(makeContext(command), args, options);
      },
  };
}

/**
 * Adds the subcommand `name` to `parent`, with its description and its example (or several,
 * for commands with more than one form) in its help, after `details` (paragraphs that answer
 * what the options alone do not) when given.
 */
export function subcommand(
  parent: Command,
  name: string,
  description: string,
  example: string | readonly string[],
  details?: string,
  /** `isDefault`: the parent runs this subcommand when given no subcommand name. */
  commandOptions?: { isDefault?: boolean },
): Command {
  const examples = typeof example === 'string' ? [example] : example;
  const command = parent.command(name, commandOptions).description(description);
  EXAMPLES.set(command, examples);
  if (details) DETAILS.set(command, details.trim());
  return command.addHelpText('after', `\n${details ? `${details.trim()}\n\n` : ''}${examplesText(examples)}`);
}

/** The examples each command was given ({@link subcommand}, {@link group}); the CLI reference reads them. */
const EXAMPLES = new WeakMap<Command, readonly string[]>();

/** The paragraphs after the options of each command's help ({@link subcommand}'s `details`). */
const DETAILS = new WeakMap<Command, string>();

/** The details paragraphs `command` was given, if any. */
export function detailsOf(command: Command): string | undefined {
  return DETAILS.get(command);
}

/** The examples `command` was given, if any. */
export function examplesOf(command: Command): readonly string[] | undefined {
  return EXAMPLES.get(command);
}

function examplesText(examples: readonly string[]): string {
  const heading = examples.length > 1 ? 'Examples' : 'Example';
  return `${heading}:\n${examples.map((line) => `  $ ${line}`).join('\n')}`;
}

/** Adds the command group `name` (a command with subcommands) to `parent`, with its examples in its help. */
export function group(
  parent: Command,
  name: string,
  description: string,
  example: string | readonly string[],
): Command {
  const examples = typeof example === 'string' ? [example] : example;
  const command = parent.command(name).description(description);
  EXAMPLES.set(command, examples);
  return command.addHelpText('after', `\n${examplesText(examples)}`);
}

/**
 * Gives every group under `program` that was made without {@link group} the examples of its
 * first subcommands (up to three), so each group's `--help` shows how it is used.
 */
export function addGroupExamples(program: Command): void {
  for (const command of program.commands) {
    if (command.commands.length === 0) continue;
    addGroupExamples(command);
    if (EXAMPLES.has(command)) continue;
    const examples = command.commands
      .map((child) => EXAMPLES.get(child)?.[0])
      .filter((line): line is string => line !== undefined)
      .slice(0, 3);
    if (examples.length === 0) continue;
    EXAMPLES.set(command, examples);
    command.addHelpText('after', `\n${examplesText(examples)}`);
  }
}

/** Parses an option value that must be a time (ISO with a zone, `now`, `+10m`, `-2h`), as ISO in UTC. */
export function toTime(value: string): string {
  return asOptionValue(() => parseTime(value, new Date()));
}

/** Parses an option value that must be a duration (`90s`, `10m`, `1h30m`), as milliseconds. */
export function toDuration(value: string): number {
  return asOptionValue(() => parseDuration(value));
}

/** Runs a parser, turning its usage error into commander's (exit code 2, named option). */
function asOptionValue<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/** Parses an option value that must be a positive integer. */
export function toPositiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

/** Parses an option value that must be a non-negative integer. */
export function toNonNegativeInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('must be a non-negative integer');
  return number;
}

/** `['a', 'b', 'c']` as `a, b or c`, for help and error texts. */
export function orList(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
