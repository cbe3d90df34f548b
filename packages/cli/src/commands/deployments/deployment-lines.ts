import type { Deployment } from '@trelliscms/core';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';

/** Deployments as a table: one row each, with the build serving it and why it failed. */
export function deploymentTable(deployments: readonly Deployment[]): string[] {
  return table(
    deployments.map((deployment) => ({
      id: deployment.id,
      status: deployment.status,
      release: deployment.releaseId,
      env: deployment.environmentId,
      validFrom: deployment.validFrom,
      build: deployment.buildId ?? deployment.prebuiltBuildId ?? '',
      note:
        deployment.error ??
        (deployment.rollbackOf ? `rollback of ${deployment.rollbackOf}` : (deployment.intent ?? '')),
    })),
    ['id', 'status', 'release', 'env', 'validFrom', 'build', 'note'],
  );
}

/**
 * What state a deployment is in, for a person: live (with its build), scheduled (with its
 * prebuilt build or the error of its last prebuild), failed (with the error and how to retry),
 * or superseded.
 */
export function deploymentLines(deployment: Deployment, now: Date): string[] {
  const { id, releaseId: release, environmentId: env } = deployment;
  switch (deployment.status) {
    case 'deployed':
      return [
        `${id}: ${release} is live on ${env}${deployment.buildId ? ` (build ${deployment.buildId})` : ''}.`,
      ];
    case 'pending': {
      const lines =
        Date.parse(deployment.validFrom) > now.getTime()
          ? [
              `${id}: ${release} goes live on ${env} at ${deployment.validFrom} (pending${
                deployment.prebuiltBuildId ? `; build ${deployment.prebuiltBuildId} is ready` : ''
              }).`,
            ]
          : [`${id}: ${release} is pending on ${env}: its build is not live yet.`];
      if (deployment.error) lines.push(`  last prebuild failed: ${deployment.error}`);
      return lines;
    }
    case 'failed':
      return [
        `${id}: deploying ${release} to ${env} FAILED: ${deployment.error ?? 'the server gave no reason'}`,
        `  The site that was live stays live. Retry with: cms deployments retry ${id}`,
      ];
    case 'superseded':
      return [
        `${id}: ${release} on ${env} was superseded${deployment.supersededBy ? ` by ${deployment.supersededBy}` : ''}${
          deployment.supersededAt ? ` at ${deployment.supersededAt}` : ''
        }.`,
      ];
  }
}

/** A command that made or read one deployment exits 1 when it `failed`, else 0. */
export function exitCodeOfDeployment(deployment: Deployment): number {
  return deployment.status === 'failed' ? ExitCode.apiError : ExitCode.ok;
}
