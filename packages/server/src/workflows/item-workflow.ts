import {
  effectiveState,
  isPublishedState,
  type Workflow,
  type WorkflowHistoryEntry,
  workflowForType,
} from '@trelliscms/core';
import { CONTENT_LABEL, splitItemProps, typeOfId } from '../content/item-record';
import type { GraphNode, GraphReader, GraphWriter } from '../engines/port';
import { internalNodeId } from '../shared/internal-ids';
import { allNodes } from '../shared/node-pages';

/**
 * Where each item is in its workflow, kept beside the item so content writes stay as they are:
 *
 * - `WorkflowState` `~wfstate:<itemId>`: the state the item's last move put it in (`state`,
 *   `workflow`, `seq` of that move). Absent until its first move; read through
 *   {@link effectiveState}, which keeps it in step with whether the item is live (a release
 *   deployment or an unpublish changes that without a move).
 * - `WorkflowMove` `~wfmove:<itemId>:<seq>`: one per move (from, to, transition, who, role,
 *   comment, when, the item version then). They are the item's workflow history, shown by
 *   GET /api/workflows/{vvId}/state and on the item's versions (GET …/versions).
 *
 * Deleting an item deletes both ({@link forgetItemWorkflow}).
 */
export const WORKFLOW_STATE_LABEL = 'WorkflowState';
export const WORKFLOW_MOVE_LABEL = 'WorkflowMove';

export function workflowStateId(itemId: string): string {
  return internalNodeId('wfstate', itemId);
}

function moveId(itemId: string, seq: number): string {
  return internalNodeId('wfmove', `${itemId}:${String(seq).padStart(8, '0')}`);
}

/** An item's place in its workflow. */
export interface ItemWorkflowState {
  itemId: string;
  workflow: Workflow;
  state: string;
  isLive: boolean;
  publishedEnvs: string[];
  /** The item's head version. */
  version: number;
  /** The sequence number of its last move (0 before the first). */
  seq: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** The workflow state of each item node (Content nodes only), read in one engine call. */
export async function readItemStates(
  reader: GraphReader,
  workflows: readonly Workflow[],
  items: readonly GraphNode[],
): Promise<Map<string, ItemWorkflowState>> {
  const content = items.filter((item) => item.labels.includes(CONTENT_LABEL));
  const stored = new Map(
    (await reader.getNodes(content.map((item) => workflowStateId(item.id)))).map((node) => [
      String(node.props.itemId),
      node.props,
    ]),
  );
  const out = new Map<string, ItemWorkflowState>();
  for (const item of content) {
    const { meta } = splitItemProps(item.props);
    const workflow = workflowForType(workflows, typeOfId(item.id));
    const recorded = stored.get(item.id);
    const isLive = meta.publishedEnvs.length > 0;
    // A state recorded under another workflow (the type changed workflow since) does not count.
    const sameWorkflow = recorded?.workflow === workflow.name;
    out.set(item.id, {
      itemId: item.id,
      workflow,
      state: effectiveState(workflow, {
        recorded: sameWorkflow ? (recorded?.state as string | undefined) : null,
        isLive,
      }),
      isLive,
      publishedEnvs: meta.publishedEnvs,
      version: meta.version,
      seq: Number(recorded?.seq ?? 0),
      updatedAt: sameWorkflow ? ((recorded?.at as string | undefined) ?? null) : null,
      updatedBy: sameWorkflow ? ((recorded?.by as string | undefined) ?? null) : null,
    });
  }
  return out;
}

/** One move to record. */
export interface MoveRecord {
  itemId: string;
  workflow: string;
  transition: string;
  from: string;
  to: string;
  by: string;
  role: string;
  comment: string | null;
  at: string;
  version: number;
  /** The sequence number of the item's previous move (0 before the first). */
  previousSeq: number;
}

/** Stores moves (their history nodes and each item's new state) in the caller's transaction. */
export async function recordMoves(tx: GraphWriter, moves: readonly MoveRecord[]): Promise<void> {
  if (moves.length === 0) return;
  await tx.createNodes(
    moves.map((move) => ({
      id: moveId(move.itemId, move.previousSeq + 1),
      labels: [WORKFLOW_MOVE_LABEL],
      props: {
        itemId: move.itemId,
        seq: move.previousSeq + 1,
        workflow: move.workflow,
        transition: move.transition,
        from: move.from,
        to: move.to,
        by: move.by,
        role: move.role,
        comment: move.comment,
        at: move.at,
        version: move.version,
      },
    })),
  );
  for (const move of moves) {
    await tx.putNode({
      id: workflowStateId(move.itemId),
      labels: [WORKFLOW_STATE_LABEL],
      props: {
        itemId: move.itemId,
        workflow: move.workflow,
        state: move.to,
        seq: move.previousSeq + 1,
        at: move.at,
        by: move.by,
      },
    });
  }
}

function toEntry(node: GraphNode): WorkflowHistoryEntry {
  const props = node.props;
  return {
    from: (props.from as string | null | undefined) ?? null,
    to: String(props.to),
    at: String(props.at),
    by: (props.by as string | null | undefined) ?? null,
    comment: (props.comment as string | null | undefined) ?? null,
    workflow: String(props.workflow),
    transition: String(props.transition),
    version: Number(props.version),
    role: String(props.role),
  };
}

/** An item's moves, newest first. */
export async function listMoves(reader: GraphReader, itemId: string): Promise<WorkflowHistoryEntry[]> {
  const nodes = await allNodes(reader, {
    label: WORKFLOW_MOVE_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: itemId }],
    orderBy: [{ prop: 'seq', direction: 'desc' }],
  });
  return nodes.map(toEntry);
}

/** Gives each version of an item the moves made while it was the head (oldest first). */
export async function withMoves<V extends { version: number }>(
  reader: GraphReader,
  itemId: string,
  versions: V[],
): Promise<Array<V & { transitions?: WorkflowHistoryEntry[] }>> {
  const moves = await listMoves(reader, itemId);
  if (moves.length === 0) return versions;
  return versions.map((version) => {
    const made = moves.filter((move) => move.version === version.version).reverse();
    return made.length > 0 ? { ...version, transitions: made } : version;
  });
}

/** Deletes an item's workflow state and history (the item is being deleted), in the caller's transaction. */
export async function forgetItemWorkflow(tx: GraphWriter, itemId: string): Promise<void> {
  const moves = await allNodes(tx, {
    label: WORKFLOW_MOVE_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: itemId }],
  });
  for (const move of moves) await tx.deleteNode(move.id);
  await tx.deleteNode(workflowStateId(itemId));
}

/** The items whose recorded state in `workflow` is one an item only reaches by a move (for a delete's `in_use`). */
export async function itemsInWorkflow(
  reader: GraphReader,
  workflow: Workflow,
): Promise<Array<{ itemId: string; state: string }>> {
  const nodes = await allNodes(reader, {
    label: WORKFLOW_STATE_LABEL,
    where: [{ prop: 'workflow', op: 'eq', value: workflow.name }],
  });
  return nodes
    .map((node) => ({ itemId: String(node.props.itemId), state: String(node.props.state) }))
    .filter(({ state }) => state !== workflow.initial && !isPublishedState(workflow, state));
}
