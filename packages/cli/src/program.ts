import { Command, CommanderError } from 'commander';
import { defineAgentCommands } from './commands/agent/definition';
import { defineAiCommands } from './commands/ai/definition';
import { defineAuditCommands } from './commands/audit/definition';
import { defineBlocksCommands } from './commands/blocks/definition';
import { defineBugsCommands } from './commands/bugs/definition';
import { defineBuildCommand } from './commands/build/definition';
import { defineBuildsCommands } from './commands/builds/definition';
import { addGroupExamples, createCommandKit } from './commands/command-kit';
import { defineCompletionCommands } from './commands/completion/definition';
import { defineContentCommands } from './commands/content/definition';
import { defineDeployCommand } from './commands/deploy/definition';
import { defineDeploymentsCommands } from './commands/deployments/definition';
import { defineDripCommands } from './commands/drip/definition';
import { defineEdgesCommands } from './commands/edges/definition';
import { defineEnvsCommands } from './commands/envs/definition';
import { defineExportCommand } from './commands/export/definition';
import { defineHealthCommand } from './commands/health/definition';
import { defineImportCommands } from './commands/import/definition';
import { defineKeysCommands } from './commands/keys/definition';
import { defineLeadsCommands } from './commands/leads/definition';
import { defineLiveCommand } from './commands/live/definition';
import { defineLocalesCommands } from './commands/locales/definition';
import { defineLoginCommand } from './commands/login/definition';
import { defineMaintenanceCommands } from './commands/maintenance/definition';
import { defineMediaCommands } from './commands/media/definition';
import { defineMembersCommands } from './commands/members/definition';
import { defineNotificationsCommands } from './commands/notifications/definition';
import { defineProfilesCommands } from './commands/profiles/definition';
import { definePublishCommands } from './commands/publish/definition';
import { defineQueriesCommands } from './commands/queries/definition';
import { defineQueueCommand } from './commands/queue/definition';
import { defineReleasesCommands } from './commands/releases/definition';
import { defineReplayCommand } from './commands/replay/definition';
import { defineResourceCommands } from './commands/resources/definition';
import { defineRollbackCommand } from './commands/rollback/definition';
import { defineRoutesCommands } from './commands/routes/definition';
import { defineScriptsCommands } from './commands/scripts/definition';
import { defineSdkCommands } from './commands/sdk/definition';
import { defineServeCommand } from './commands/serve/definition';
import { defineSiteFolderCommands } from './commands/site-folder/definition';
import { defineSitesCommands } from './commands/sites/definition';
import { defineTemplatesCommands } from './commands/templates/definition';
import { defineTypesCommands } from './commands/types/definition';
import { defineVersionsCommands } from './commands/versions/definition';
import { defineWebhooksCommands } from './commands/webhooks/definition';
import { defineWorkflowsCommands } from './commands/workflows/definition';
import { ExitCode, errorJson, exitCodeOf, formatError } from './errors';
import type { CliIo } from './io/cli-io';
import { VERSION } from './version';

/** The command groups in the order `cms --help` lists them. */
const GROUPS = [
  defineLoginCommand,
  defineProfilesCommands,
  defineHealthCommand,
  defineSitesCommands,
  defineSiteFolderCommands,
  defineTypesCommands,
  defineRoutesCommands,
  defineResourceCommands,
  defineQueriesCommands,
  defineScriptsCommands,
  defineContentCommands,
  defineVersionsCommands,
  defineBlocksCommands,
  definePublishCommands,
  defineWorkflowsCommands,
  defineImportCommands,
  defineEdgesCommands,
  defineTemplatesCommands,
  defineMediaCommands,
  defineAiCommands,
  defineBuildCommand,
  defineBuildsCommands,
  defineReleasesCommands,
  defineDeployCommand,
  defineDeploymentsCommands,
  defineRollbackCommand,
  defineDripCommands,
  defineQueueCommand,
  defineReplayCommand,
  defineLiveCommand,
  defineEnvsCommands,
  defineLocalesCommands,
  defineMembersCommands,
  defineKeysCommands,
  defineWebhooksCommands,
  defineNotificationsCommands,
  defineAuditCommands,
  defineMaintenanceCommands,
  defineExportCommand,
  defineAgentCommands,
  defineLeadsCommands,
  defineSdkCommands,
  defineBugsCommands,
  defineServeCommand,
  defineCompletionCommands,
];

/**
 * Builds the `cms` command tree: the global options, then each command group from its own
 * folder under `commands/`. `state.exitCode` receives the exit code of the action that ran.
 */
export function createProgram(io: CliIo, state: { exitCode: number }): Command {
  const program = new Command('cms');
  program
    .description(
      'Operate a Trellis server: sites, types, content, publishing, imports, templates, builds, releases and deployments, members and keys.',
    )
    .version(VERSION, '-v, --version')
    .option(
      '--url <url>',
      'server URL; a bare host and a trailing /api are fine (env CMS_URL; default: the profile)',
    )
    .option('--key <key>', 'API key (env CMS_API_KEY; default: the profile)')
    .option(
      '--site <slug>',
      'site of site commands: its slug or id site:<slug> (env CMS_SITE; default: the profile)',
    )
    .option(
      '--profile <name>',
      'profile of the config file to use (env CMS_PROFILE; default: the current one)',
    )
    .option('--json', 'print machine-readable JSON on stdout')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 1 API error, 2 usage error, 3 connection error, 4 partial failure.

Example:
  $ cms login --url http://127.0.0.1:4000 --key "$CMS_OWNER_KEY"
  $ cms sites create "My blog" --slug blog --starter-kit author --use
  $ cms build
  $ cms publish --type post --status draft --env prod`,
    );
  const kit = createCommandKit(io, state);
  for (const defineGroup of GROUPS) defineGroup(program, kit);
  addGroupExamples(program);
  return program;
}

/**
 * Runs `cms` with `argv` (without the node and script entries) and returns the exit code.
 * Errors are printed as one or two lines (status, code, hint), never as a stack trace.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const state = { exitCode: ExitCode.ok as number };
  const program = createProgram(io, state);
  const configure = (command: Command) => {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    for (const child of command.commands) configure(child);
  };
  configure(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version exit 0; a group run without a subcommand, an unknown option or a
      // missing argument has already been reported by commander: a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const wantsJson = argv.includes('--json');
    if (wantsJson) io.stdout.write(`${JSON.stringify(errorJson(error), null, 2)}\n`);
    io.stderr.write(`${formatError(error)}\n`);
    return exitCodeOf(error);
  }
}
