import type { Argument, Command, Option } from 'commander';
import { detailsOf, examplesOf } from '../commands/command-kit';
import { createProgram } from '../program';

const isVisible = (command: Command) =>
  command.name() !== 'help' && !(command as unknown as { _hidden?: boolean })._hidden;

const pathOf = (command: Command): string[] => {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names;
};

const anchorOf = (command: Command) =>
  pathOf(command)
    .join('-')
    .replace(/[^a-z0-9-]/gi, '')
    .toLowerCase();

/** One paragraph: the hard line breaks of help text joined with spaces. */
const paragraphs = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean);

/** Text for Markdown outside code: `<slug>` stays text, not an HTML tag. */
const md = (text: string) => text.replace(/</g, '&lt;').replace(/>/g, '&gt;');

const escapeCell = (text: string) => md(text).replace(/\|/g, '\\|');

function argumentLine(argument: Argument): string {
  const name = argument.name() + (argument.variadic ? '...' : '');
  const shown = argument.required ? `<${name}>` : `[${name}]`;
  const choices = argument.argChoices ? ` (one of: ${argument.argChoices.join(', ')})` : '';
  return `| \`${shown}\` | ${escapeCell(argument.description)}${choices} |`;
}

function optionLine(option: Option): string {
  const extras: string[] = [];
  if (option.argChoices) extras.push(`one of: ${option.argChoices.join(', ')}`);
  if (option.defaultValue !== undefined && option.defaultValue !== false && !option.negate) {
    extras.push(`default: ${JSON.stringify(option.defaultValue)}`);
  }
  const suffix = extras.length > 0 ? ` (${extras.join('; ')})` : '';
  return `| \`${option.flags}\` | ${escapeCell(option.description)}${suffix} |`;
}

function section(command: Command): string[] {
  const name = pathOf(command).join(' ');
  const lines = [`### ${name}`, '', md(command.description()), ''];
  const aliases = command.aliases();
  const usage = `${name} ${command.usage()}`.trim();
  lines.push('```text', usage, '```', '');
  if (aliases.length > 0) lines.push(`Alias: ${aliases.map((alias) => `\`${alias}\``).join(', ')}.`, '');
  const args = (command as unknown as { registeredArguments: Argument[] }).registeredArguments;
  if (args.length > 0) lines.push('| Argument | Meaning |', '|---|---|', ...args.map(argumentLine), '');
  const options = command.options.filter((option) => !option.hidden);
  if (options.length > 0) lines.push('| Option | Meaning |', '|---|---|', ...options.map(optionLine), '');
  const subcommands = command.commands.filter(isVisible);
  if (subcommands.length > 0) {
    lines.push(
      'Subcommands:',
      '',
      ...subcommands.map(
        (child) => `- [\`${pathOf(child).join(' ')}\`](#${anchorOf(child)}): ${md(child.description())}`,
      ),
      '',
    );
  }
  const details = detailsOf(command);
  if (details) lines.push(...paragraphs(details).flatMap((paragraph) => [md(paragraph), '']));
  const examples = examplesOf(command);
  if (examples && examples.length > 0) {
    lines.push(
      examples.length > 1 ? 'Examples:' : 'Example:',
      '',
      '```sh',
      ...examples.map((line) => `$ ${line}`),
      '```',
      '',
    );
  }
  return lines;
}

/**
 * The CLI reference (docs/cli.md) as Markdown, generated from the command tree: every
 * command and group with its usage, arguments, options, details and examples. `pnpm --filter
 * @trelliscms/cli docs` writes it; a test keeps the committed file equal to this.
 */
export function renderCliReference(): string {
  const sink = { write: () => true };
  const program = createProgram(
    { stdout: sink, stderr: sink, env: {}, fs: {} as never, cwd: '/' },
    { exitCode: 0 },
  );
  const commands: Command[] = [];
  const walk = (command: Command) => {
    for (const child of command.commands.filter(isVisible)) {
      commands.push(child);
      walk(child);
    }
  };
  walk(program);
  const globals = program.options.filter((option) => !option.hidden);
  const lines = [
    '# `cms` command reference',
    '',
    '<!-- Generated from the commands by `pnpm --filter @trelliscms/cli docs`; do not edit by hand. -->',
    '',
    program.description(),
    '',
    'Exit codes: 0 ok, 1 API error, 2 usage error, 3 connection error, 4 partial failure.',
    '',
    '## Global options',
    '',
    'Every command accepts these.',
    '',
    '| Option | Meaning |',
    '|---|---|',
    ...globals.map(optionLine),
    '',
    '## Commands',
    '',
    ...program.commands
      .filter(isVisible)
      .map((command) => `- [\`cms ${command.name()}\`](#${anchorOf(command)}): ${md(command.description())}`),
    '',
    ...commands.flatMap(section),
  ];
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
