import type { DripPattern } from '@trelliscms/core';
import { ExitCode, UsageError } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';
import { deploymentTable } from '../deployments/deployment-lines';
import { toEnvironmentId, toReleaseIds } from '../release-ids';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** The options `cms drip preview` and `cms drip schedule` share. */
export interface DripOptions {
  /** Comma-separated release names or ids, in the order they go live. */
  releases?: string;
  /** ISO window start and end. */
  from: string;
  to: string;
  pattern?: DripPattern;
  /** A whole number is sent as a number, anything else as a string (the server seeds with either). */
  seed?: string;
  maxJitterMs?: number;
  minSpacingMs?: number;
}

/** The request body both endpoints share. */
function dripBody(options: DripOptions) {
  const seed =
    options.seed === undefined
      ? undefined
      : /^-?\d{1,15}$/.test(options.seed)
        ? Number(options.seed)
        : options.seed;
  return {
    windowStart: options.from,
    windowEnd: options.to,
    pattern: options.pattern,
    seed,
    maxJitterMs: options.maxJitterMs,
    minSpacingMs: options.minSpacingMs,
  };
}

/** `cms drip preview`: the timestamps (and which release goes live when) a drip would use; writes nothing. */
export async function dripPreview({
  site,
  out,
  count,
  ...options
}: Deps & DripOptions & { count?: number }): Promise<number> {
  if ((options.releases === undefined) === (count === undefined)) {
    throw new UsageError('Give --releases a,b,c (one time each) or --count n (times only), one of them.');
  }
  const releaseIds = options.releases === undefined ? undefined : toReleaseIds(options.releases);
  const answer = await site.releases.dripPreview({ ...dripBody(options), releaseIds, count });
  out.result(answer, () =>
    answer.pairs
      ? table(answer.pairs, ['validFrom', 'releaseId'])
      : table(
          answer.schedule.timestamps.map((validFrom, index) => ({ n: index + 1, validFrom })),
          ['n', 'validFrom'],
        ),
  );
  return ExitCode.ok;
}

/**
 * `cms drip schedule`: one pending deployment per release at the planned times, all or none
 * (every release must be approved and pass its review gate).
 */
export async function dripSchedule({
  site,
  out,
  env,
  ...options
}: Deps & DripOptions & { env: string }): Promise<number> {
  if (options.releases === undefined) throw new UsageError('Give the releases to schedule: --releases a,b,c');
  const answer = await site.releases.dripSchedule({
    ...dripBody(options),
    releaseIds: toReleaseIds(options.releases),
    environmentId: toEnvironmentId(env),
  });
  out.result(answer, () => [
    `Scheduled ${answer.deployments.length} deployment(s) on ${toEnvironmentId(env)}; each build is made ahead of its time.`,
    ...deploymentTable(answer.deployments),
    'See them with: cms queue',
  ]);
  return ExitCode.ok;
}
