import type { Command, Option } from 'commander';
import { readConfig } from '../../config/profiles';
import { ExitCode, UsageError } from '../../errors';
import type { CliIo } from '../../io/cli-io';

/** The shells `cms completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * The completion scripts: each asks `cms __complete -- <words>` for the candidates of the
 * word under the cursor, so they follow the installed version's commands and options.
 */
export const SCRIPTS: Record<Shell, string> = {
  bash: `# cms completion for bash: add to ~/.bashrc:  source <(cms completion bash)
_cms_completion() {
  local IFS=$'\\n'
  COMPREPLY=($(cms __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _cms_completion cms
`,
  zsh: `#compdef cms
# cms completion for zsh: add to ~/.zshrc:  source <(cms completion zsh)
_cms() {
  local -a candidates
  candidates=("\${(@f)$(cms __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _cms cms
`,
  fish: `# cms completion for fish: cms completion fish > ~/.config/fish/completions/cms.fish
function __cms_complete
  set -l tokens (commandline -opc) (commandline -ct)
  cms __complete -- $tokens[2..-1] 2>/dev/null
end
complete -c cms -f -a '(__cms_complete)'
`,
};

/** `cms completion <shell>`: prints the completion script of the shell. */
export function completionScript({ io, shell }: { io: CliIo; shell: string }): number {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(`No completion for ${shell}: choose bash, zsh or fish.`);
  }
  io.stdout.write(SCRIPTS[shell as Shell]);
  return ExitCode.ok;
}

const visible = (command: Command) =>
  command.name() !== 'help' && !(command as unknown as { _hidden?: boolean })._hidden;
const longFlags = (options: readonly Option[]) =>
  options.filter((option) => !option.hidden && option.long).map((option) => option.long!);

/**
 * The candidates for the last of `words` (the words after `cms`, the last one being typed):
 * subcommands of the command the earlier words name, its options and the global ones, the
 * choices of an option that takes a value, or the saved profile names after --profile.
 */
export async function completions({
  program,
  words,
  io,
  configFile,
}: {
  program: Command;
  words: string[];
  io: CliIo;
  configFile: string;
}): Promise<string[]> {
  const typed = words.at(-1) ?? '';
  const done = words.slice(0, -1);
  let command = program;
  let pending: Option | undefined;
  const optionOf = (flag: string) =>
    [...command.options, ...program.options].find((option) => option.long === flag || option.short === flag);
  for (const word of done) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionOf(word.split('=')[0]!);
      if (option && (option.required || option.optional) && !word.includes('=')) pending = option;
      continue;
    }
    const child = command.commands.find((entry) => entry.name() === word || entry.aliases().includes(word));
    if (child) command = child;
  }
  let candidates: string[];
  if (pending) {
    if (pending.long === '--profile') {
      candidates = Object.keys((await readConfig(io.fs, configFile)).profiles);
    } else {
      candidates = pending.argChoices ?? [];
    }
  } else if (typed.startsWith('-')) {
    candidates = [...longFlags(command.options), ...longFlags(program.options), '--help'];
  } else {
    candidates = command.commands.filter(visible).map((entry) => entry.name());
    const [argument] = (command as unknown as { registeredArguments: { argChoices?: string[] }[] })
      .registeredArguments;
    if (candidates.length === 0 && argument?.argChoices) candidates = argument.argChoices;
  }
  return [...new Set(candidates)].filter((candidate) => candidate.startsWith(typed));
}
