import { type BugReport, type CreateBugReportBody, TrellisError } from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader, PropFilter } from '../engines/port';
import { internalNodeId, internalNodeIdOf, publicResourceId } from '../shared/internal-ids';

/** Node label of a bug report (`~bug:<uuid>`), in the platform graph. */
export const BUG_REPORT_LABEL = 'BugReport';

function toBugReport(node: GraphNode): BugReport {
  const p = node.props;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: publicResourceId(node.id),
    message: text(p.message) ?? '',
    context:
      typeof p.context === 'object' && p.context !== null ? (p.context as Record<string, unknown>) : {},
    requestId: text(p.requestId),
    reporter: text(p.reporter) ?? '',
    reporterKey: text(p.reporterKey),
    userAgent: text(p.userAgent),
    createdAt: text(p.createdAt) ?? '',
  };
}

/** Stores a report in the platform graph (audited `bugs.create` by the reporter). */
export async function createBugReport(params: {
  platform: Graph;
  body: CreateBugReportBody;
  reporter: { userId: string; keyId: string | null };
  userAgent: string | null;
  now: string;
}): Promise<BugReport> {
  const id = internalNodeId('bug', crypto.randomUUID());
  const { body, reporter } = params;
  const node = await params.platform.transaction(async (tx) => {
    const created = await tx.createNode({
      id,
      labels: [BUG_REPORT_LABEL],
      props: {
        message: body.message,
        context: body.context ?? {},
        requestId: body.requestId ?? null,
        reporter: reporter.userId,
        reporterKey: reporter.keyId,
        userAgent: params.userAgent?.slice(0, 500) ?? null,
        createdAt: params.now,
      },
    });
    await tx.appendAudit({
      actor: reporter.keyId ?? reporter.userId,
      action: 'bugs.create',
      target: publicResourceId(id),
    });
    return created;
  });
  return toBugReport(node);
}

/** One page of the reports, newest first (only those of `requestId` when given), with their count. */
export async function listBugReports(
  platform: GraphReader,
  query: { limit: number; offset: number; requestId?: string },
): Promise<{ items: BugReport[]; total: number }> {
  const where: PropFilter[] = query.requestId
    ? [{ prop: 'requestId', op: 'eq', value: query.requestId }]
    : [];
  const page = await platform.findNodes({
    label: BUG_REPORT_LABEL,
    where,
    orderBy: [{ prop: 'createdAt', direction: 'desc' }],
    limit: query.limit,
    offset: query.offset,
  });
  return { items: page.nodes.map(toBugReport), total: page.total };
}

/** Deletes report `id` (`bug:<uuid>`), audited `bugs.delete`; 404 when there is none. */
export async function deleteBugReport(params: { platform: Graph; id: string; actor: string }): Promise<void> {
  const nodeId = internalNodeIdOf(params.id);
  const missing = () => TrellisError.of('not_found', { resource: `Bug report \`${params.id}\`` });
  if (!params.id.startsWith('bug:')) throw missing();
  await params.platform.transaction(async (tx) => {
    const node = await tx.getNode(nodeId);
    if (!node?.labels.includes(BUG_REPORT_LABEL)) throw missing();
    await tx.deleteNode(nodeId);
    await tx.appendAudit({ actor: params.actor, action: 'bugs.delete', target: params.id });
  });
}
