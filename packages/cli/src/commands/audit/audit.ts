import { ExitCode } from '../../errors';
import type { SiteCommandDeps } from '../context';

/** `cms audit verify`: checks the site's audit hash chain; exits 1 when it is broken. */
export async function auditVerify({
  site,
  out,
  graph,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { graph?: string }): Promise<number> {
  const verdict = await site.audit.verify({ graph });
  out.result(verdict, () => [
    `audit chain of ${verdict.graph}: ${verdict.status}`,
    `records: ${verdict.records}, last seq: ${verdict.last_seq}${verdict.last_hash ? `, last hash: ${verdict.last_hash}` : ''}`,
    ...(verdict.reason ? [`reason: ${verdict.reason}`] : []),
  ]);
  return verdict.status === 'broken' ? ExitCode.apiError : ExitCode.ok;
}
