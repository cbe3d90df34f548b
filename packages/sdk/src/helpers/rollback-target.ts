import type { Deployment } from '@trelliscms/core';

/** What rolling an environment back would do: leave `live` for a new deployment of `target`'s release. */
export interface RollbackTarget {
  /** The deployment live in the environment now. */
  live: Deployment;
  /** The latest deployment live before it with another release: the release to go back to. */
  target: Deployment;
}

/** Why an environment has nothing to roll back to. */
export type NoRollbackReason = 'nothing_live' | 'no_earlier_release';

/**
 * Picks the rollback of an environment from its deployments (any order, any statuses): the
 * deployment live at `now` (as core's replay resolves it: of the deployments that went live,
 * the one live from the latest moment and not superseded by then), and the latest deployment
 * live before it whose release differs. Pending and failed deployments never were live and do
 * not count; superseded ones were. Rolling back twice therefore goes back to where it started,
 * as the release live before a rollback is the rolled-back one.
 */
export function pickRollbackTarget(
  deployments: readonly Deployment[],
  now: Date,
): RollbackTarget | { reason: NoRollbackReason } {
  const nowMs = now.getTime();
  const wereLive = deployments.filter(
    (deployment) => deployment.status === 'deployed' || deployment.status === 'superseded',
  );
  const liveNow = wereLive.filter(
    (deployment) =>
      liveFrom(deployment) <= nowMs &&
      !(deployment.supersededAt && Date.parse(deployment.supersededAt) <= nowMs),
  );
  const live = latest(liveNow);
  if (live?.status !== 'deployed') return { reason: 'nothing_live' };
  const earlier = wereLive.filter(
    (deployment) => deployment.releaseId !== live.releaseId && compareLive(deployment, live) < 0,
  );
  const target = latest(earlier);
  return target ? { live, target } : { reason: 'no_earlier_release' };
}

function latest(deployments: Deployment[]): Deployment | undefined {
  let best: Deployment | undefined;
  for (const deployment of deployments) if (!best || compareLive(deployment, best) > 0) best = deployment;
  return best;
}

/**
 * When a deployment went live: its validFrom, but never before it was created (core's
 * `liveDeploymentAt` orders the same way).
 */
function liveFrom(deployment: Deployment): number {
  const validFrom = Date.parse(deployment.validFrom);
  const createdAt = Date.parse(deployment.createdAt ?? '');
  return Number.isFinite(createdAt) ? Math.max(validFrom, createdAt) : validFrom;
}

/** Orders by the moment each went live, then by creation, then by id (ids sort by time). */
function compareLive(a: Deployment, b: Deployment): number {
  const byStart = liveFrom(a) - liveFrom(b);
  if (byStart !== 0) return byStart;
  const byCreated = Date.parse(a.createdAt ?? '') - Date.parse(b.createdAt ?? '');
  if (Number.isFinite(byCreated) && byCreated !== 0) return byCreated;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
