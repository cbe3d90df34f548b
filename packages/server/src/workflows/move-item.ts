import {
  type Environment,
  isPublishedState,
  planMove,
  planPublish,
  planUnpublish,
  publishesOf,
  type Role,
  TrellisError,
  transitionNameOf,
  type WorkflowHistoryEntry,
  type WorkflowTransitionDefinition,
} from '@trelliscms/core';
import { CONTENT_LABEL } from '../content/item-record';
import { assertItemVersion } from '../content/item-repository';
import type { Graph, GraphReader, GraphWriter } from '../engines/port';
import { getEnvironment } from '../releases/environments';
import {
  defaultPublishEnvironment,
  type PublishOutcome,
  publishItems,
  unpublishItems,
} from '../releases/publish-items';
import { type ItemWorkflowState, type MoveRecord, readItemStates, recordMoves } from './item-workflow';
import { listWorkflows, workflowOfType } from './workflow-definitions';

/**
 * What a move did: the history entry it recorded, the environments whose live state changed,
 * and whether those changes put the item live (`publish`) or took it down (`unpublish`).
 */
export interface MoveOutcome {
  entry: WorkflowHistoryEntry;
  changedEnvironments: Environment[];
  liveChange: 'publish' | 'unpublish' | null;
}

/**
 * POST /api/workflows/{vvId}/transition: moves one item along its workflow, in one transaction
 * (docs/workflows.md). The move is checked by core's `planMove` (409 not from the current
 * state, 403 not open to `role`, 400 comment missing). Entering a published state puts the
 * head version live in `env` (default: the environment POST …/publish uses) through
 * `publishItems`, as a publish does; leaving one for a state that is not takes the item down
 * from every environment it is live in. The move is recorded in the item's history and
 * audited `workflow.transition` (beside the `content.publish`/`content.unpublish` entry of
 * the live change).
 */
export async function moveItem({
  graph,
  itemId,
  role,
  actor,
  move,
  env,
  expectedVersion,
  now,
}: {
  graph: Graph;
  itemId: string;
  role: Role;
  actor: string;
  move: { to?: string | undefined; transition?: string | undefined; comment?: string | undefined };
  env?: string | undefined;
  expectedVersion?: number | undefined;
  now: Date;
}): Promise<MoveOutcome> {
  return graph.transaction(async (tx) => {
    const current = await readOne(tx, itemId);
    assertItemVersion(itemId, expectedVersion, current.version);
    const transition = planMove({
      workflow: current.workflow,
      itemId,
      state: current.state,
      role,
      move,
    });
    const publishes = publishesOf(current.workflow, { from: current.state, to: transition.to });
    const changedEnvironments: Environment[] = [];
    let envId: string | null = null;
    if (publishes === true) {
      const environment = env ? await getEnvironment(tx, env) : await defaultPublishEnvironment(tx);
      envId = environment.id;
      const outcome = await publishItems({ graph, environment, ids: [itemId], actor, now, tx });
      if (outcome.changed.length > 0) changedEnvironments.push(environment);
    } else if (publishes === false) {
      for (const name of current.publishedEnvs) {
        const environment = await getEnvironment(tx, name);
        const outcome = await unpublishItems({ graph, environment, ids: [itemId], actor, now, tx });
        if (outcome.changed.length > 0) changedEnvironments.push(environment);
      }
    }
    const entry = await record(tx, {
      current,
      transition,
      actor,
      role,
      comment: move.comment?.trim() || null,
      now,
      envId,
    });
    const liveChange = publishes === true ? 'publish' : publishes === false ? 'unpublish' : null;
    return { entry, changedEnvironments, liveChange };
  });
}

/**
 * The publish shortcuts (POST /content/{type}/{id}/publish and /unpublish, POST /api/publish and
 * /api/unpublish) as workflow moves: each item's move is checked first (a refusal refuses the
 * whole call, nothing changes), then the live state changes as before (`publishItems`,
 * `unpublishItems`, one transaction, one revision), and each item whose state changed gets
 * the move in its history; the live change's one audit entry (`content.publish`,
 * `content.unpublish`, or their `.bulk`) carries the move (`data.workflow`) or the number of
 * moves (`data.workflowMoves`). With the built-in workflow every role that could publish still
 * can, so these calls behave as they always did.
 */
export async function publishThroughWorkflow({
  graph,
  kind,
  environment,
  ids,
  role,
  actor,
  now,
}: {
  graph: Graph;
  kind: 'publish' | 'unpublish';
  environment: Environment;
  ids: readonly string[];
  role: Role;
  actor: string;
  now: Date;
}): Promise<PublishOutcome> {
  return graph.transaction(async (tx) => {
    const unique = [...new Set(ids)];
    const nodes = await tx.getNodes(unique);
    const states = await readItemStates(tx, await listWorkflows(tx), nodes);
    const planned: Array<{ current: ItemWorkflowState; transition: WorkflowTransitionDefinition }> = [];
    const envName = environment.id.startsWith('env:') ? environment.id.slice(4) : environment.id;
    for (const id of unique) {
      const current = states.get(id);
      if (!current) continue; // publishItems names the missing ones
      if (kind === 'publish') {
        const transition = planPublish({
          workflow: current.workflow,
          itemId: id,
          state: current.state,
          role,
        });
        if (transition) planned.push({ current, transition });
      } else if (current.publishedEnvs.includes(envName)) {
        const transition = planUnpublish({
          workflow: current.workflow,
          itemId: id,
          state: current.state,
          role,
        });
        // Live elsewhere too, the item stays in its published state: no move to record.
        if (transition && current.publishedEnvs.length === 1) planned.push({ current, transition });
      }
    }
    // The live change's audit entry says which workflow move it is (one entry per call, as before).
    const only = planned.length === 1 && unique.length === 1 ? planned[0] : undefined;
    const auditData = only
      ? {
          workflow: {
            name: only.current.workflow.name,
            transition: transitionNameOf(only.transition),
            from: only.current.state,
            to: only.transition.to,
          },
        }
      : planned.length > 0
        ? { workflowMoves: planned.length }
        : undefined;
    const args = { graph, environment, ids: unique, actor, now, tx, auditData };
    const outcome = kind === 'publish' ? await publishItems(args) : await unpublishItems(args);
    const moves: MoveRecord[] = planned.map(({ current, transition }) => ({
      itemId: current.itemId,
      workflow: current.workflow.name,
      transition: transitionNameOf(transition),
      from: current.state,
      to: transition.to,
      by: actor,
      role,
      comment: null,
      at: now.toISOString(),
      version: current.version,
      previousSeq: current.seq,
    }));
    await recordMoves(tx, moves);
    return outcome;
  });
}

async function readOne(tx: GraphWriter, itemId: string): Promise<ItemWorkflowState> {
  const node = await tx.getNode(itemId);
  if (!node?.labels.includes(CONTENT_LABEL)) {
    throw TrellisError.of('not_found', { resource: `Item \`${itemId}\`` });
  }
  const state = (await readItemStates(tx, await listWorkflows(tx), [node])).get(itemId);
  return state!;
}

async function record(
  tx: GraphWriter,
  {
    current,
    transition,
    actor,
    role,
    comment,
    now,
    envId,
  }: {
    current: ItemWorkflowState;
    transition: WorkflowTransitionDefinition;
    actor: string;
    role: Role;
    comment: string | null;
    now: Date;
    envId: string | null;
  },
): Promise<WorkflowHistoryEntry> {
  const at = now.toISOString();
  const name = transitionNameOf(transition);
  await recordMoves(tx, [
    {
      itemId: current.itemId,
      workflow: current.workflow.name,
      transition: name,
      from: current.state,
      to: transition.to,
      by: actor,
      role,
      comment,
      at,
      version: current.version,
      previousSeq: current.seq,
    },
  ]);
  await tx.appendAudit({
    actor,
    action: 'workflow.transition',
    target: current.itemId,
    data: {
      workflow: current.workflow.name,
      transition: name,
      from: current.state,
      to: transition.to,
      version: current.version,
      role,
      ...(comment ? { comment } : {}),
      ...(envId ? { env: envId } : {}),
    },
  });
  return {
    from: current.state,
    to: transition.to,
    at,
    by: actor,
    comment,
    workflow: current.workflow.name,
    transition: name,
    version: current.version,
    role,
  };
}

/**
 * An import's `publish` puts every imported item live without looking at each item's state,
 * so it is allowed only when the type's workflow lets `role` publish directly (no comment)
 * from every state that is not published — as the built-in workflow does. Otherwise it is
 * refused before anything is written (import without `publish`, then move the items).
 */
export async function assertImportMayPublish({
  reader,
  typeName,
  role,
}: {
  reader: GraphReader;
  typeName: string;
  role: Role;
}): Promise<void> {
  const workflow = await workflowOfType(reader, typeName);
  for (const state of workflow.states) {
    if (isPublishedState(workflow, state.name)) continue;
    planPublish({ workflow, itemId: `An imported ${typeName} item`, state: state.name, role });
  }
}
