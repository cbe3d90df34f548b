import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';
import { deploymentTable } from '../deployments/deployment-lines';
import { toEnvironmentId } from '../release-ids';

/** `cms queue [--env e] [--limit n]`: future-dated pending deployments, soonest first. */
export async function queue({
  site,
  out,
  env,
  limit,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { env?: string; limit?: number }): Promise<number> {
  const deployments = await site.releases.queue({
    envId: env === undefined ? undefined : toEnvironmentId(env),
    limit,
  });
  out.result(deployments, () => [
    ...deploymentTable(deployments),
    ...(deployments.length > 0
      ? [`${deployments.length} scheduled; BUILD is the build made ahead, if ready`]
      : []),
  ]);
  return ExitCode.ok;
}
