import { ExitCode } from '../../errors';
import { table } from '../../io/output';
import type { CommandDeps } from '../context';

type Deps = Pick<CommandDeps, 'client' | 'out'>;

/** `cms bugs report <message>`: reports a problem, with the request id of the answer that went wrong. */
export async function bugsReport({
  client,
  out,
  message,
  requestId,
  context,
}: Deps & { message: string; requestId?: string; context?: Record<string, unknown> }): Promise<number> {
  const report = await client.bugs.report({ message, requestId, context });
  out.result(
    report,
    () => `Reported ${report.id}${report.requestId ? ` (request ${report.requestId})` : ''}.`,
  );
  return ExitCode.ok;
}

/** `cms bugs list`: reports, newest first (platform admins). */
export async function bugsList({
  client,
  out,
  limit,
  requestId,
}: Deps & { limit?: number; requestId?: string }): Promise<number> {
  const page = await client.bugs.list({ limit, requestId });
  out.result(page, () => [
    ...table(page.items, ['id', 'createdAt', 'reporter', 'requestId', 'message']),
    `${page.items.length} of ${page.total} report(s).`,
  ]);
  return ExitCode.ok;
}
