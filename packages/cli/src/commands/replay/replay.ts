import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';
import { liveEntryTable } from '../live/live-entries';
import { toEnvironmentId } from '../release-ids';

/**
 * `cms replay --env e [--at T]`: the deployment and release live in the environment at T (past
 * or future), their includes, and the items live then when the server lists them.
 */
export async function replay({
  site,
  out,
  env,
  at,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { env: string; at?: string }): Promise<number> {
  const envId = toEnvironmentId(env);
  const answer = await site.releases.replay({ envId, atTime: at });
  out.result(answer, () => {
    const when = answer.atTime ?? at ?? 'now';
    const lines = [
      answer.deployment
        ? `${envId} at ${when}${answer.future ? ' (future: counting scheduled deployments)' : ''}: ${answer.deployment.releaseId} via ${answer.deployment.id} (${answer.deployment.status}, from ${answer.deployment.validFrom}).`
        : `${envId} at ${when}: no release was live.`,
    ];
    if (answer.includes.length > 0) {
      lines.push('', 'Release items:', ...table(answer.includes, ['versionableId', 'version', 'at']));
    }
    if (answer.live) lines.push('', `Live items (${answer.live.length}):`, ...liveEntryTable(answer.live));
    return lines;
  });
  return ExitCode.ok;
}
