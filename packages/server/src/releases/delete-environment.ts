import { type Holder, TrellisError } from '@trelliscms/core';
import type { Graph, GraphReader } from '../engines/port';
import { assertDeletable } from '../shared/in-use';
import { allNodes } from '../shared/node-pages';
import { environmentIdOf } from './environments';
import { LIVE_ITEM_LABEL } from './live-state';
import { DEFAULT_ENVIRONMENTS, DEPLOYMENT_LABEL, ENVIRONMENT_LABEL } from './release-records';

/** What holds an environment: the deployments still to go live there, and the items live there. */
export async function findEnvironmentHolders(reader: GraphReader, id: string): Promise<Holder[]> {
  const holders: Holder[] = [];
  const pending = await allNodes(reader, {
    label: DEPLOYMENT_LABEL,
    where: [
      { prop: 'environmentId', op: 'eq', value: id },
      { prop: 'status', op: 'eq', value: 'pending' },
    ],
  });
  for (const node of pending) {
    holders.push({
      kind: 'deployment',
      id: node.id,
      detail: `pending: ${String(node.props.releaseId)} goes live at ${String(node.props.validFrom)}`,
      cascades: false,
    });
  }
  const live = await allNodes(reader, {
    label: LIVE_ITEM_LABEL,
    where: [{ prop: 'envId', op: 'in', value: [id, id.slice('env:'.length)] }],
  });
  for (const node of live) {
    holders.push({
      kind: 'item',
      id: String(node.props.itemId),
      detail: `live at version ${String(node.props.version)}`,
      cascades: false,
    });
  }
  return holders;
}

/**
 * Deletes an environment (by name or `env:<name>`), in one transaction with one audit entry.
 * `env:dev` and `env:prod` always exist: 409 `conflict`. 404 for one the site does not have;
 * 409 `in_use` while a pending deployment targets it or an item is live there
 * ({@link findEnvironmentHolders}; unpublish them first — no cascade). Its history
 * (deployments, live revisions) is kept.
 */
export async function deleteEnvironment({
  graph,
  nameOrId,
  actor,
}: {
  graph: Graph;
  nameOrId: string;
  actor: string;
}): Promise<void> {
  const id = environmentIdOf(nameOrId);
  if (DEFAULT_ENVIRONMENTS.some((environment) => environment.id === id)) {
    throw TrellisError.of('conflict', {
      detail: `\`${id}\` always exists and cannot be deleted; change its settings with PUT /api/releases/environments/${id}.`,
    });
  }
  await graph.transaction(async (tx) => {
    const node = await tx.getNode(id);
    if (!node?.labels.includes(ENVIRONMENT_LABEL)) {
      throw TrellisError.of('not_found', { resource: `Environment \`${id}\`` });
    }
    assertDeletable({
      resource: `Environment \`${id}\``,
      holders: await findEnvironmentHolders(tx, id),
      cascade: false,
    });
    await tx.deleteNode(id);
    await tx.appendAudit({
      actor,
      action: 'environment.delete',
      target: id,
      data: { name: node.props.name },
    });
  });
}
