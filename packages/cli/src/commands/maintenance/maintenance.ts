import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { SiteCommandDeps } from '../context';

type Deps = Pick<SiteCommandDeps, 'site' | 'out'>;

/** `cms maintenance embeddings <type>`: computes the missing embeddings of a type's items (idempotent). */
export async function maintenanceEmbeddings({ site, out, type }: Deps & { type: string }): Promise<number> {
  const answer = await site.maintenance.materializeEmbeddings(type);
  out.result(answer, () => [
    `Embeddings of ${answer.type} (${answer.nodeLabel}): ${answer.embedded ?? 'all'} item(s) embedded in ${answer.durationMs} ms.`,
    ...(answer.note ? [`  ${answer.note}`] : []),
  ]);
  return answer.ok ? ExitCode.ok : ExitCode.apiError;
}

/** `cms maintenance procedures`: what the graph engine offers (admins). */
export async function maintenanceProcedures({ site, out }: Deps): Promise<number> {
  const answer = await site.maintenance.engineProcedures();
  out.result(answer, () => [
    `${answer.procedureCount} procedure(s), found via ${answer.via}:`,
    ...table(answer.procedures, Object.keys(answer.procedures[0] ?? { name: '' }).slice(0, 4)),
  ]);
  return ExitCode.ok;
}
