import type { Command } from 'commander';
import { type CommandKit, subcommand } from '../command-kit';
import { rollback } from './rollback';

export interface RollbackFlags {
  to?: string;
  env?: string;
  dryRun?: boolean;
}

/** `cms rollback <deployment> --to <release>` and `cms rollback --env e` */
export function defineRollbackCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'rollback',
    'Roll a live deployment back to an earlier release (switches to its build; no render)',
    [
      'cms rollback --env prod',
      'cms rollback --env prod --dry-run',
      'cms rollback deploy:20260501120000000-ab12cd --to spring-launch',
    ],
    `With --env, the deployment live there now goes back to the release that was live before
it (found in cms deployments list --env <name>); rolling back twice returns to where it
started. With a deployment id, --to names the release to go back to; it must have been live
in the same environment. The rolled-back deployment becomes "superseded".`,
  )
    .argument('[deployment]', 'the deployment to roll back, deploy:<id> (with --to)')
    .option('--to <release>', 'the release to go back to, release:<name> or the name')
    .option('--env <name>', "roll this environment's live deployment back, e.g. prod")
    .option('--dry-run', 'with --env: print what would be rolled back, change nothing')
    .action(
      action<RollbackFlags>(async (context, [deployment], options) =>
        rollback({
          site: await context.site(),
          out: context.out,
          deployment,
          to: options.to,
          env: options.env,
          dryRun: options.dryRun === true,
        }),
      ),
    );
}
