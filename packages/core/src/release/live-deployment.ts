/** The part of a deployment replay needs. */
export interface DeploymentTimelineEntry {
  id: string;
  status: 'pending' | 'deployed' | 'superseded';
  validFrom: string;
  supersededAt?: string | null;
  createdAt?: string;
}

/**
 * Replay resolution, "what was live at T" in one environment: among its deployments whose
 * `validFrom` is at or before T and that were not superseded (rolled back) at or before T,
 * the one with the latest `validFrom` (ties: the later created, then the greater id). A
 * pending deployment counts from its validFrom: that is when the scheduler makes it live.
 * Null when none was live.
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
    if (Date.parse(deployment.validFrom) > atMs) continue;
    if (deployment.supersededAt && Date.parse(deployment.supersededAt) <= atMs) continue;
    if (live === null || isLater(deployment, live)) live = deployment;
  }
  return live;
}

function isLater(a: DeploymentTimelineEntry, b: DeploymentTimelineEntry): boolean {
  const byValidFrom = Date.parse(a.validFrom) - Date.parse(b.validFrom);
  if (byValidFrom !== 0) return byValidFrom > 0;
  const byCreated = Date.parse(a.createdAt ?? '') - Date.parse(b.createdAt ?? '');
  if (Number.isFinite(byCreated) && byCreated !== 0) return byCreated > 0;
  return a.id > b.id;
}
