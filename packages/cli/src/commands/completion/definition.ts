import { Argument, type Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { completionScript, completions, SHELLS } from './completion';

/** `cms completion <shell>` and the hidden `cms __complete` the scripts call. */
export function defineCompletionCommands(program: Command, { io, action }: CommandKit): void {
  subcommand(
    program,
    'completion',
    'Print the shell completion script (bash, zsh or fish)',
    [
      'cms completion bash > ~/.local/share/bash-completion/completions/cms',
      'cms completion zsh > ~/.zfunc/_cms',
      'cms completion fish > ~/.config/fish/completions/cms.fish',
    ],
    `Completes commands, subcommands, options, option choices and profile names. To try it in
the current shell: source <(cms completion bash) (or zsh).`,
  )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(action(async (_context, [shell]) => completionScript({ io, shell: shell! })));
  program
    .command('__complete', { hidden: true })
    .description('Print the completions of the last word (used by the completion scripts)')
    .addHelpText('after', '\nExample:\n  $ cms __complete -- sites l')
    .argument('[words...]', 'the words after cms, the last one being completed')
    .action(
      action(async (context, [words]) => {
        const list = await completions({
          program,
          words: (words as unknown as string[] | undefined) ?? [''],
          io,
          configFile: context.configFile,
        });
        if (list.length > 0) io.stdout.write(`${list.join('\n')}\n`);
        return 0;
      }),
    );
}
