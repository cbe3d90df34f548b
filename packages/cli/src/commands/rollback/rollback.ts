import { ExitCode, UsageError } from '../../errors';
import type { SiteCommandDeps } from '../context';
import { deploymentLines, exitCodeOfDeployment } from '../deployments/deployment-lines';
import { toDeploymentId, toEnvironmentId, toReleaseId } from '../release-ids';

export interface RollbackOptions {
  /** The deployment to roll back (with `to`). */
  deployment?: string;
  /** The release to go back to (with `deployment`). */
  to?: string;
  /** Roll this environment's live deployment back to the release live before it. */
  env?: string;
  /** With `env`: print what would happen, change nothing. */
  dryRun: boolean;
}

/**
 * `cms rollback <deployment> --to <release>`, or `cms rollback --env e`: a new, live deployment
 * of an earlier release (a pointer switch to its build, no render); the rolled-back deployment
 * becomes superseded.
 */
export async function rollback({
  site,
  out,
  ...options
}: Pick<SiteCommandDeps, 'site' | 'out'> & RollbackOptions): Promise<number> {
  if (options.env !== undefined) {
    if (options.deployment !== undefined || options.to !== undefined) {
      throw new UsageError(
        'Give --env alone (the live deployment goes back to the release live before it), or a deployment id with --to <release>.',
      );
    }
    const envId = toEnvironmentId(options.env);
    if (options.dryRun) {
      const { live, target } = await site.releases.rollbackTarget(envId);
      out.result({ dryRun: true, live, target }, () => [
        `Would roll ${envId} back from ${live.releaseId} (${live.id}) to ${target.releaseId} (live before, ${target.id}).`,
        `Run again without --dry-run to do it.`,
      ]);
      return ExitCode.ok;
    }
    const { rolledBack, deployment } = await site.releases.rollbackEnvironment(envId);
    out.result(deployment, () => [
      `Rolled ${envId} back from ${rolledBack.releaseId} (${rolledBack.id}, now superseded) to ${deployment.releaseId}.`,
      ...deploymentLines(deployment, new Date()),
    ]);
    return exitCodeOfDeployment(deployment);
  }
  if (options.deployment === undefined || options.to === undefined) {
    throw new UsageError(
      'Name what to roll back: a deployment id with --to <release>, or --env <name> for the live deployment there.',
    );
  }
  if (options.dryRun) throw new UsageError('--dry-run goes with --env.');
  const deploymentId = toDeploymentId(options.deployment);
  const deployment = await site.releases.rollbackDeployment(deploymentId, toReleaseId(options.to));
  out.result(deployment, () => [
    `Rolled back ${deploymentId} (now superseded) to ${deployment.releaseId}.`,
    ...deploymentLines(deployment, new Date()),
  ]);
  return exitCodeOfDeployment(deployment);
}
