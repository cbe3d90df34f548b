import type { Command } from 'commander';
import { type CommandKit, subcommand, toNonNegativeInt } from '../command-kit';
import { envsDelete, envsList, envsSet } from './envs';

export interface EnvsSetFlags {
  label?: string;
  order?: number;
  autoBuild?: boolean;
  requiresApproval?: boolean;
  /** A URL, or false for --no-public-url. */
  publicUrl?: string | false;
}

/** `cms envs list|set|delete` */
export function defineEnvsCommands(program: Command, { action }: CommandKit): void {
  const envs = program
    .command('envs')
    .description(
      'Environments of the site (dev and prod always exist): where releases deploy and items publish',
    );
  subcommand(envs, 'list', 'List the environments, in order', [
    'cms envs list',
    'cms envs list --json',
  ]).action(action(async (context) => envsList({ site: await context.site(), out: context.out })));
  subcommand(
    envs,
    'set',
    'Create an environment, or change the given settings of one (admins)',
    [
      'cms envs set staging --order 1 --auto-build --requires-approval',
      'cms envs set prod --public-url https://www.example.org',
      'cms envs set prod --no-requires-approval --no-public-url',
    ],
    `Settings not given keep their value (a new environment starts at order 0, every flag off).
--order places it between dev (0) and prod; an item published without --env goes to the
lowest-order environment above dev. --auto-build builds it when a deployment goes live.
--requires-approval refuses --skip-review-gate there.`,
  )
    .argument('<name>', 'environment name, e.g. staging (or env:staging)')
    .option('--label <name>', 'display name (default: the name)')
    .option('--order <n>', 'position among the environments', toNonNegativeInt)
    .option('--auto-build', 'build when a deployment goes live')
    .option('--no-auto-build', 'do not build when a deployment goes live')
    .option('--requires-approval', 'deploys need an approved, fully reviewed release (no --skip-review-gate)')
    .option('--no-requires-approval', 'allow --skip-review-gate (admins)')
    .option('--public-url <url>', 'the public URL of its site (http or https)')
    .option('--no-public-url', 'remove the public URL override')
    .action(
      action<EnvsSetFlags>(async (context, [name], options) =>
        envsSet({
          site: await context.site(),
          out: context.out,
          name: name!,
          label: options.label,
          order: options.order,
          autoBuild: options.autoBuild,
          requiresApproval: options.requiresApproval,
          publicUrl: options.publicUrl === false ? null : options.publicUrl,
        }),
      ),
    );
  subcommand(
    envs,
    'delete',
    'Delete an environment (admins; alias rm)',
    'cms envs delete staging',
    `dev and prod always exist and cannot be deleted. An environment is refused (409 in_use) while
items are live in it (cms content unpublish --env <name>) or a deployment to it is pending;
they are listed. Its deployments and live history are kept.`,
  )
    .alias('rm')
    .argument('<name>', 'environment name, e.g. staging (or env:staging)')
    .action(
      action(async (context, [name]) =>
        envsDelete({ site: await context.site(), out: context.out, name: name! }),
      ),
    );
}
