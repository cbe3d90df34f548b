import type { Deployment } from '@trelliscms/core';
import type { SiteCommandDeps } from '../context';
import { deploymentLines, exitCodeOfDeployment } from '../deployments/deployment-lines';
import { toEnvironmentId, toReleaseId } from '../release-ids';

export interface DeployOptions {
  release: string;
  env: string;
  /** ISO validFrom; absent: now. */
  at?: string;
  intent?: string;
  skipReviewGate: boolean;
  /** Have the server answer at once, and follow the deployment until it is live or failed. */
  async: boolean;
  pollIntervalMs: number;
  /** The clock, for "is `at` in the future". */
  now: Date;
}

/**
 * `cms deploy <release> --env e`: deploys an approved release. Due now, the server builds the
 * environment with it and answers when it is live (or failed); with `--async` the CLI follows it
 * instead. A future `--at` schedules it (the build is made ahead). Exits 1 when it failed.
 */
export async function deploy({
  site,
  out,
  ...options
}: Pick<SiteCommandDeps, 'site' | 'out'> & DeployOptions): Promise<number> {
  const releaseId = toReleaseId(options.release);
  const body = {
    environmentId: toEnvironmentId(options.env),
    intent: options.intent,
    validFrom: options.at,
    skipReviewGate: options.skipReviewGate || undefined,
  };
  const isFuture = options.at !== undefined && Date.parse(options.at) > options.now.getTime();
  let deployment: Deployment;
  if (options.async && !isFuture) {
    deployment = await site.releases.deployAndWait(releaseId, body, {
      pollIntervalMs: options.pollIntervalMs,
      onStatus: (status) => {
        if (status.status === 'pending') out.note(`  ${status.id}: pending (building ${body.environmentId})`);
      },
    });
  } else {
    if (!isFuture) out.note(`Deploying ${releaseId} to ${body.environmentId} (building)…`);
    deployment = await site.releases.deploy(releaseId, body);
  }
  out.result(deployment, () => deploymentLines(deployment, new Date()));
  return exitCodeOfDeployment(deployment);
}
