import { type Lead, TrellisError } from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader } from '../engines/port';
import { internalNodeId, internalNodeIdOf, publicResourceId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';

/** Node label of a lead (`~lead:<uuid>`), in its site's graph. */
export const LEAD_LABEL = 'Lead';

/** What a lead stores (its id and time are added by {@link createLead}). */
export type LeadInput = Omit<Lead, 'id' | 'createdAt'>;

function toLead(node: GraphNode): Lead {
  const p = node.props;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: publicResourceId(node.id),
    name: text(p.name),
    email: text(p.email),
    message: text(p.message),
    fields: typeof p.fields === 'object' && p.fields !== null ? (p.fields as Record<string, string>) : {},
    pageUrl: text(p.pageUrl),
    origin: text(p.origin),
    createdAt: text(p.createdAt) ?? '',
  };
}

/** Stores a lead in its site's graph (audited `leads.create` by `public`). */
export async function createLead(params: { graph: Graph; lead: LeadInput; now: string }): Promise<Lead> {
  const id = internalNodeId('lead', crypto.randomUUID());
  const node = await params.graph.transaction(async (tx) => {
    const created = await tx.createNode({
      id,
      labels: [LEAD_LABEL],
      props: { ...params.lead, createdAt: params.now },
      // leads are not found by the site's full-text search
      searchText: '',
    });
    await tx.appendAudit({ actor: 'public', action: 'leads.create', target: publicResourceId(id) });
    return created;
  });
  return toLead(node);
}

/** One page of the site's leads, newest first, with the count of all of them. */
export async function listLeads(
  graph: GraphReader,
  page: { limit: number; offset: number },
): Promise<{ items: Lead[]; total: number }> {
  const found = await graph.findNodes({
    label: LEAD_LABEL,
    orderBy: [{ prop: 'createdAt', direction: 'desc' }],
    limit: page.limit,
    offset: page.offset,
  });
  return { items: found.nodes.map(toLead), total: found.total };
}

/** Every lead of the site, newest first (the CSV export). */
export async function allLeads(graph: GraphReader): Promise<Lead[]> {
  const nodes = await allNodes(graph, {
    label: LEAD_LABEL,
    orderBy: [{ prop: 'createdAt', direction: 'desc' }],
  });
  return nodes.map(toLead);
}

/** Deletes lead `id` (`lead:<uuid>`), audited `leads.delete`; 404 when the site has none. */
export async function deleteLead(params: { graph: Graph; id: string; actor: string }): Promise<void> {
  const nodeId = internalNodeIdOf(params.id);
  const missing = () => TrellisError.of('not_found', { resource: `Lead \`${params.id}\`` });
  if (!params.id.startsWith('lead:')) throw missing();
  await params.graph.transaction(async (tx) => {
    const node = await tx.getNode(nodeId);
    if (!node?.labels.includes(LEAD_LABEL)) throw missing();
    await tx.deleteNode(nodeId);
    await tx.appendAudit({ actor: params.actor, action: 'leads.delete', target: params.id });
  });
}
