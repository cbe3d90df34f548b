import type { Command } from 'commander';
import { type CommandKit, subcommand, toPositiveInt, toTime } from '../command-kit';
import { deploy } from './deploy';

export interface DeployFlags {
  env: string;
  at?: string;
  intent?: string;
  skipReviewGate?: boolean;
  async?: boolean;
  /** Milliseconds; 1000 unless given. */
  pollInterval: number;
}

/** `cms deploy <release> --env e` */
export function defineDeployCommand(program: Command, { action }: CommandKit): void {
  subcommand(
    program,
    'deploy',
    'Deploy an approved release to an environment: now (builds it, then switches), or scheduled with --at',
    [
      'cms deploy spring-launch --env prod',
      'cms deploy spring-launch --env prod --at 2026-05-01T09:00:00Z --intent "spring launch"',
      'cms deploy spring-launch --env prod --at +2h',
      'cms deploy spring-launch --env staging --async --poll-interval 2000',
    ],
    `Due now, the environment is built with the release and switched when the build is done; if
the build fails the deployment is "failed" (exit 1), its error is printed and the site that
was live stays live (retry: cms deployments retry <id>). A future --at answers "pending":
the build is made ahead and the scheduler switches at that time (see cms queue).`,
  )
    .argument('<release>', 'release:<name> or the name (approved)')
    .requiredOption('--env <name>', 'environment, e.g. prod or staging')
    .option(
      '--at <time>',
      'when it goes live: ISO date-time with a zone, now, +10m, -2h (default: now)',
      toTime,
    )
    .option('--intent <text>', 'why it is deployed (kept on the deployment)')
    .option(
      '--skip-review-gate',
      'deploy despite blocking or stale reviews (admins; not where approval is required)',
    )
    .option('--async', 'the server answers at once; follow the deployment until it is live or failed')
    .option('--poll-interval <ms>', 'with --async: ms between reads of the deployment', toPositiveInt, 1000)
    .action(
      action<DeployFlags>(async (context, [release], options) =>
        deploy({
          site: await context.site(),
          out: context.out,
          release: release!,
          env: options.env,
          at: options.at,
          intent: options.intent,
          skipReviewGate: options.skipReviewGate === true,
          async: options.async === true,
          pollIntervalMs: options.pollInterval,
          now: new Date(),
        }),
      ),
    );
}
