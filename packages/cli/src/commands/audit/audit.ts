import type { SiteClient } from '@trelliscms/sdk';
import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

/**
 * `cms audit verify`: checks the site's audit chain (keyed hashes, and the heads anchored
 * outside the graph); says where it breaks and exits 1 when it is broken.
 */
export async function auditVerify({
  site,
  out,
  graph,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { graph?: string }): Promise<number> {
  const verdict = await site.audit.verify({ graph });
  out.result(verdict, () => [
    `audit chain of ${verdict.graph}: ${verdict.status}`,
    `records: ${verdict.records}, last seq: ${verdict.last_seq}${verdict.last_hash ? `, last hash: ${verdict.last_hash}` : ''}`,
    ...(typeof verdict.anchored_seq === 'number' ? [`anchored head: seq ${verdict.anchored_seq}`] : []),
    ...(verdict.legacy_through ? [`written before keying: seq 1–${verdict.legacy_through}`] : []),
    ...(typeof verdict.bad_seq === 'number' ? [`first bad seq: ${verdict.bad_seq}`] : []),
    ...(verdict.reason ? [`reason: ${verdict.reason}`] : []),
  ]);
  return verdict.status === 'broken' ? ExitCode.apiError : ExitCode.ok;
}

/**
 * `cms audit log`: who did what to which resource, when — newest first, filtered and paged;
 * the last line says which entries of how many were shown.
 */
export async function auditLog({
  site,
  out,
  query,
}: Pick<SiteCommandDeps, 'site' | 'out'> & {
  query: Parameters<SiteClient['audit']['log']>[0];
}): Promise<number> {
  const log = await site.audit.log(query);
  out.result(log, () => {
    const rows = log.items.map((entry) => ({
      seq: entry.seq,
      ts: entry.ts,
      actor: entry.actorName ? `${entry.actor} (${entry.actorName})` : entry.actor,
      action: entry.action,
      target: entry.target,
    }));
    const first = log.items.length > 0 ? log.offset + 1 : log.offset;
    return [
      ...table(rows, ['seq', 'ts', 'actor', 'action', 'target']),
      `${first}–${log.offset + log.items.length} of ${log.total}`,
    ];
  });
  return ExitCode.ok;
}

/** `cms audit checklist`: the verification checklist of the site's graph (admins). */
export async function auditChecklist({
  site,
  out,
  graph,
}: Pick<SiteCommandDeps, 'site' | 'out'> & { graph?: string }): Promise<number> {
  const answer = await site.audit.checklist(graph ? { graph } : {});
  out.result(answer, () =>
    table(
      answer.rows.map((row) => ({ ...row, lastVerifiedAt: row.last_verified_at })),
      ['feature', 'status', 'version', 'lastVerifiedAt', 'message'],
    ),
  );
  return ExitCode.ok;
}
