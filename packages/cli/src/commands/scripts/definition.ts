import { ScriptEvent } from '@trelliscms/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import {
  type ScriptOptions,
  scriptsCreate,
  scriptsDelete,
  scriptsList,
  scriptsShow,
  scriptsTest,
  scriptsUpdate,
} from './scripts';

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('a whole number above 0');
  return number;
}

/** The options `create` and `update` share. */
function withScriptOptions(command: Command): Command {
  return command
    .option('--file <path.js>', 'the JavaScript source (a function body)')
    .addOption(new Option('--event <event>', 'when it runs').choices(ScriptEvent.options))
    .option('--type <type>', 'the content type it runs for (* for every type)')
    .option('--timeout <ms>', 'time limit in ms (1..30000; default 1000)', positiveInt)
    .option('--memory <mb>', 'memory limit in MB (1..256; default 16)', positiveInt)
    .option('--description <text>', 'what it is for')
    .option('--enable', 'enable it')
    .option('--disable', 'disable it');
}

type RawScriptOptions = ScriptOptions & { disable?: boolean };

function scriptOptions(raw: RawScriptOptions): ScriptOptions {
  const { disable, ...options } = raw;
  return disable ? { ...options, enable: false } : options;
}

const CONTRACT = `A script is the body of a function: it gets \`input\` (also \`item\`, \`site\`, \`event\`,
\`build\` as names) and returns the changed item ({fields: {...}}) or nothing; it refuses a
write with \`throw new Error("message")\` or \`return {error: "message"}\`. It runs in QuickJS
(WebAssembly) with no network, files or timers, within its time and memory limits.
Events: beforeSave, afterSave, beforePublish, afterPublish (item writes), beforeBuild,
beforeRender, afterBuild (builds), manual (only by transforms and \`cms scripts test\`).
See docs/scripts.md.`;

/** `cms scripts list|show|create|update|rm|test` */
export function defineScriptsCommands(program: Command, { io, action }: CommandKit): void {
  const scripts = program
    .command('scripts')
    .description('Scripts: server-side hooks in JavaScript, run in a sandbox')
    .addHelpText(
      'after',
      `\n${CONTRACT}\n\nExample:\n  $ cms scripts create require-summary --file require-summary.js --event beforeSave --type post\n  $ cms scripts test require-summary --input post.json`,
    );
  subcommand(scripts, 'list', 'List the scripts', 'cms scripts list').action(
    action(async (context) => scriptsList({ site: await context.site(), out: context.out })),
  );
  subcommand(scripts, 'show', 'Show a script’s settings and source', 'cms scripts show require-summary')
    .argument('<name>', 'script name')
    .action(
      action(async (context, [name]) =>
        scriptsShow({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
  withScriptOptions(
    subcommand(
      scripts,
      'create',
      'Create a script from a .js file',
      [
        'cms scripts create require-summary --file require-summary.js --event beforeSave --type post',
        'cms scripts create word-count --file word-count.js --event beforeSave --timeout 500 --memory 8',
      ],
      CONTRACT,
    ).argument('<name>', 'script name'),
  ).action(
    action<RawScriptOptions>(async (context, [name], options) =>
      scriptsCreate({
        site: await context.site(),
        client: await context.client(),
        out: context.out,
        io,
        name: name!,
        options: scriptOptions(options),
      }),
    ),
  );
  withScriptOptions(
    subcommand(scripts, 'update', 'Change a script’s source or settings', [
      'cms scripts update require-summary --file require-summary.js',
      'cms scripts update word-count --disable',
    ]).argument('<name>', 'script name'),
  ).action(
    action<RawScriptOptions>(async (context, [name], options) =>
      scriptsUpdate({
        site: await context.site(),
        client: await context.client(),
        out: context.out,
        io,
        name: name!,
        options: scriptOptions(options),
      }),
    ),
  );
  subcommand(
    scripts,
    'delete',
    'Delete a script (alias rm)',
    ['cms scripts rm word-count', 'cms scripts rm word-count --cascade'],
    'A script that transforms run is refused (409 in_use); --cascade deletes those transforms with it.',
  )
    .alias('rm')
    .argument('<name>', 'script name')
    .option('--cascade', 'delete the transforms that run it too')
    .action(
      action<{ cascade?: boolean }>(async (context, [name], options) =>
        scriptsDelete({
          site: await context.site(),
          out: context.out,
          name: name!,
          cascade: options.cascade === true,
        }),
      ),
    );
  subcommand(
    scripts,
    'test',
    'Dry-run a script in the server’s sandbox on a JSON input (writes nothing)',
    ['cms scripts test require-summary --input post.json', 'cms scripts test word-count --json'],
    `The input file is the JSON object the script gets as \`input\`, e.g.
{"event": "beforeSave", "item": {"id": "post:a", "type": "post", "fields": {"title": "A"}}}.
Exit code 0 when the script returned, 1 when it refused or was stopped at a limit.`,
  )
    .argument('<name>', 'script name')
    .option('--input <file.json>', 'the JSON input (default {})')
    .action(
      action<{ input?: string }>(async (context, [name], options) =>
        scriptsTest({
          site: await context.site(),
          client: await context.client(),
          out: context.out,
          io,
          name: name!,
          input: options.input,
        }),
      ),
    );
}
