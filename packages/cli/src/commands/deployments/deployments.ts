import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';
import { pageFooter } from '../page-footer';
import { toDeploymentId, toEnvironmentId } from '../release-ids';
import { deploymentLines, deploymentTable, exitCodeOfDeployment } from './deployment-lines';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms deployments list [--env e] [--limit n] [--offset n]`: recent deployments, newest first. */
export async function deploymentsList({
  site,
  out,
  env,
  limit,
  offset,
}: Deps & { env?: string; limit?: number; offset?: number }): Promise<number> {
  const page = await site.releases.deploymentsPage({
    envId: env === undefined ? undefined : toEnvironmentId(env),
    limit,
    offset,
  });
  out.result(page.items, () => [
    ...deploymentTable(page.items),
    pageFooter({ offset, shown: page.items.length, total: page.total }),
  ]);
  return ExitCode.ok;
}

/** `cms deployments show <id>`: one deployment; exits 1 when it failed. */
export async function deploymentsShow({ site, out, id }: Deps & { id: string }): Promise<number> {
  const deployment = await site.releases.getDeployment(toDeploymentId(id));
  out.result(deployment, () => [
    ...deploymentLines(deployment, new Date()),
    JSON.stringify(deployment, null, 2),
  ]);
  return exitCodeOfDeployment(deployment);
}

/** `cms deployments retry <id>`: tries a failed deployment again; exits 1 when it fails again. */
export async function deploymentsRetry({ site, out, id }: Deps & { id: string }): Promise<number> {
  const full = toDeploymentId(id);
  out.note(`Retrying ${full}…`);
  const deployment = await site.releases.retryDeployment(full);
  out.result(deployment, () => deploymentLines(deployment, new Date()));
  return exitCodeOfDeployment(deployment);
}
