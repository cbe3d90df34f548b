import type { Command } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import { deploymentsList, deploymentsRetry, deploymentsShow } from './deployments';

export interface DeploymentsListFlags {
  env?: string;
  limit?: number;
  offset?: number;
}

/** `cms deployments list|show|retry` */
export function defineDeploymentsCommands(program: Command, { action }: CommandKit): void {
  const deployments = program
    .command('deployments')
    .description('Deployments of releases: list them, show one, retry a failed one');
  subcommand(deployments, 'list', 'List recent deployments, newest first', [
    'cms deployments list --env prod --limit 10',
    'cms deployments list --limit 50 --offset 50',
    'cms deployments list --json',
  ])
    .option('--env <name>', 'only this environment, e.g. prod')
    .option('--limit <n>', 'how many (default 50, at most 500)', toPositiveInt)
    .option('--offset <n>', 'how many of the newest to skip', toNonNegativeInt)
    .action(
      action<DeploymentsListFlags>(async (context, _args, options) =>
        deploymentsList({
          site: await context.site(),
          out: context.out,
          env: options.env,
          limit: options.limit,
          offset: options.offset,
        }),
      ),
    );
  subcommand(
    deployments,
    'show',
    'Show a deployment: live, scheduled, failed (with the error) or superseded; exits 1 when failed',
    'cms deployments show deploy:20260501120000000-ab12cd',
  )
    .argument('<id>', 'deployment id deploy:<id> (the prefix may be left out)')
    .action(
      action(async (context, [id]) =>
        deploymentsShow({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
  subcommand(
    deployments,
    'retry',
    'Try a failed deployment again (it builds the environment); exits 1 when it fails again',
    'cms deployments retry deploy:20260501120000000-ab12cd',
  )
    .argument('<id>', 'the failed deployment')
    .action(
      action(async (context, [id]) =>
        deploymentsRetry({ site: await context.site(), out: context.out, id: id! }),
      ),
    );
}
