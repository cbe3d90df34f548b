import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';
import { deploymentTable } from '../deployments/deployment-lines';
import { pageFooter } from '../page-footer';
import { toEnvironmentId } from '../release-ids';

/** `cms queue [--env e] [--limit n] [--offset n]`: future-dated pending deployments, soonest first. */
export async function queue({
  site,
  out,
  env,
  limit,
  offset,
}: Pick<SiteCommandDeps, 'site' | 'out'> & {
  env?: string;
  limit?: number;
  offset?: number;
}): Promise<number> {
  const page = await site.releases.queuePage({
    envId: env === undefined ? undefined : toEnvironmentId(env),
    limit,
    offset,
  });
  const deployments = page.items;
  out.result(deployments, () => [
    ...deploymentTable(deployments),
    ...(page.total > 0
      ? [
          `${pageFooter({ offset, shown: deployments.length, total: page.total })} scheduled; BUILD is the build made ahead, if ready`,
        ]
      : []),
  ]);
  return ExitCode.ok;
}
