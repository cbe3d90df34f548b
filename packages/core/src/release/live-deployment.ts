/** The part of a deployment replay needs. */
export interface DeploymentTimelineEntry {
  id: string;
  status: 'pending' | 'deployed' | 'superseded' | 'failed';
  validFrom: string;
  /** When it actually went live (its build was switched in), once it did. */
  deployedAt?: string | null;
  supersededAt?: string | null;
  createdAt?: string;
}

/**
 * When a deployment went live: when it did (`deployedAt`), else its `validFrom`, but never
 * before it was created (a deploy dated in the past was not live before it was made).
 */
function liveFrom(deployment: DeploymentTimelineEntry): number {
  const deployedAt = Date.parse(deployment.deployedAt ?? '');
  if (Number.isFinite(deployedAt)) return deployedAt;
  const validFrom = Date.parse(deployment.validFrom);
  const createdAt = Date.parse(deployment.createdAt ?? '');
  return Number.isFinite(createdAt) ? Math.max(validFrom, createdAt) : validFrom;
}

/**
 * Replay resolution, "what was live at T" in one environment: among its deployments live
 * from a moment at or before T (their `validFrom`, or their creation when that was later)
 * and not superseded (rolled back) at or before T, the one live from the latest moment
 * (ties: the later created, then the greater id). A pending deployment counts from its
 * validFrom: that is when the scheduler makes it live; a failed one never was. Null when none was live.
 */
export function liveDeploymentAt<T extends DeploymentTimelineEntry>({
  deployments,
  at,
}: {
  deployments: readonly T[];
  at: Date;
}): T | null {
  const atMs = at.getTime();
  let live: T | null = null;
  for (const deployment of deployments) {
    if (deployment.status === 'failed') continue;
    if (liveFrom(deployment) > atMs) continue;
    if (deployment.supersededAt && Date.parse(deployment.supersededAt) <= atMs) continue;
    if (live === null || isLater(deployment, live)) live = deployment;
  }
  return live;
}

function isLater(a: DeploymentTimelineEntry, b: DeploymentTimelineEntry): boolean {
  const byStart = liveFrom(a) - liveFrom(b);
  if (byStart !== 0) return byStart > 0;
  const byCreated = Date.parse(a.createdAt ?? '') - Date.parse(b.createdAt ?? '');
  if (Number.isFinite(byCreated) && byCreated !== 0) return byCreated > 0;
  return a.id > b.id;
}
