import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/**
 * `cms edges rm <from> <EDGE> <to>`: removes one relationship edge between two items
 * (POST /api/import/edges/remove). An edge that does not exist is not an error (exit 0: the
 * removal is done); a refused one (not between items, or the only target of a required
 * relationship) prints why and exits 1.
 */
export async function edgesRemove({
  site,
  out,
  from,
  edge,
  to,
}: Deps & { from: string; edge: string; to: string }): Promise<number> {
  const result = await site.import.removeEdges({ edges: [{ from, edge, to }] });
  const triple = `${from} -[${edge}]-> ${to}`;
  const refused = result.errors[0];
  if (refused) {
    out.result(result, () => [`Not removed: ${triple}: ${refused.error}`]);
    return ExitCode.apiError;
  }
  out.result(result, () => [
    result.removed > 0 ? `Removed ${triple}.` : `No edge ${triple}: nothing to remove.`,
  ]);
  return ExitCode.ok;
}
