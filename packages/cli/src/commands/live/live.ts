import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';
import { toEnvironmentId } from '../release-ids';
import { liveEntryTable } from './live-entries';

/** `cms live --env e [--at T]`: every item live in the environment (now or at T), at its version. */
export async function live({
  site,
  out,
  env,
  at,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { env: string; at?: string }): Promise<number> {
  const state = await site.releases.live({ envId: toEnvironmentId(env), atTime: at });
  out.result(state, () => [
    `${state.envId} at ${state.atTime}: live revision ${state.revision}, ${state.items.length} item(s)${
      state.buildId ? `, served by build ${state.buildId}` : ''
    }.`,
    ...liveEntryTable(state.items),
  ]);
  return ExitCode.ok;
}
