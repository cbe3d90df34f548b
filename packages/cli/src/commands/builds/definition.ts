import type { Command } from 'commander';
import { type CommandKit, group, subcommand, toNonNegativeInt, toPositiveInt } from '../command-kit';
import { buildsCancel, buildsHistory, buildsPrune, buildsRollback, buildsShow } from './builds';

/** `cms builds history|status|last|cancel|rollback|prune` (`cms build` runs one) */
export function defineBuildsCommands(program: Command, { action }: CommandKit): void {
  const builds = group(
    program,
    'builds',
    'Builds: history, status, cancel, rollback, prune (cms build runs one)',
    ['cms builds history --env prod --limit 10', 'cms builds rollback b-20261125-0907'],
  );
  subcommand(
    builds,
    'history',
    'List recent builds, newest first (the live one marked *)',
    'cms builds history --env prod',
  )
    .option('--env <name>', 'only builds of this environment')
    .option('--limit <n>', 'how many (default 50)', toPositiveInt)
    .option('--offset <n>', 'builds to skip', toNonNegativeInt)
    .action(
      action<{ env?: string; limit?: number; offset?: number }>(async (context, _args, options) =>
        buildsHistory({ site: await context.site(), out: context.out, ...options }),
      ),
    );
  subcommand(
    builds,
    'status',
    'Show one build (exit 1 when it ended in error)',
    'cms builds status b-20261125-0907',
  )
    .argument('<buildId>', 'build id (from cms builds history or cms build --async)')
    .action(
      action(async (context, [buildId]) =>
        buildsShow({ site: await context.site(), out: context.out, buildId: buildId! }),
      ),
    );
  subcommand(builds, 'last', 'Show the last build of an environment', 'cms builds last --env prod')
    .option('--env <name>', 'environment (default dev)')
    .action(
      action<{ env?: string }>(async (context, _args, options) =>
        buildsShow({ site: await context.site(), out: context.out, env: options.env }),
      ),
    );
  subcommand(
    builds,
    'rollback',
    "Serve an earlier build's output again (no render)",
    'cms builds rollback b-20261125-0907',
    'For releases deployed with cms deploy, use cms rollback instead: it records the deployment.',
  )
    .argument('<buildId>', 'build to serve (cms builds history lists them)')
    .action(
      action(async (context, [buildId]) =>
        buildsRollback({ site: await context.site(), out: context.out, buildId: buildId! }),
      ),
    );
  subcommand(
    builds,
    'cancel',
    'Ask a queued or running build to stop (it deploys nothing)',
    'cms builds cancel b-20261125-0907',
  )
    .argument('<buildId>', 'build id (cms builds history lists them)')
    .action(
      action(async (context, [buildId]) =>
        buildsCancel({ site: await context.site(), out: context.out, buildId: buildId! }),
      ),
    );
  subcommand(
    builds,
    'prune',
    "Delete old build versions of an environment from the server's disk",
    ['cms builds prune --env dev', 'cms builds prune --env prod --keep 5'],
    'The live build and builds a pending deployment needs are always kept. Without --keep the server keeps its retention (CMS_BUILD_RETENTION).',
  )
    .option('--env <name>', 'environment (default dev)')
    .option('--keep <n>', 'how many of the newest to keep', toPositiveInt)
    .action(
      action<{ env?: string; keep?: number }>(async (context, _args, options) =>
        buildsPrune({ site: await context.site(), out: context.out, env: options.env, keep: options.keep }),
      ),
    );
}
