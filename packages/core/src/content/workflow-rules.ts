import { TrellisError } from '../errors';
import type { Role } from '../schemas/common';
import {
  transitionNameOf,
  type Workflow,
  type WorkflowAllowedTransition,
  type WorkflowTransitionDefinition,
} from '../schemas/workflows';

/** The rules of docs/workflows.md: which workflow an item follows, where it is, and who may move it. */

/** The name of the built-in workflow. */
export const DEFAULT_WORKFLOW_NAME = 'default';

/** The name of the state POST …/publish moves an item into, in the default workflow and by convention. */
export const PUBLISHED_STATE = 'published';

/**
 * The built-in workflow of every type no stored workflow covers: `draft` ⇄ `published`, each
 * move open to the roles that may publish today (owner, admin, editor, publisher). It is exactly
 * what POST /content/{type}/{id}/publish and /unpublish (and POST /api/publish) always did.
 */
export const DEFAULT_WORKFLOW: Workflow = {
  name: DEFAULT_WORKFLOW_NAME,
  description: 'Built in: draft ⇄ published, for every type no other workflow names.',
  states: [
    { name: 'draft', label: 'Draft' },
    { name: PUBLISHED_STATE, label: 'Published', published: true },
  ],
  initial: 'draft',
  transitions: [
    { name: 'publish', from: 'draft', to: PUBLISHED_STATE, label: 'Publish' },
    { name: 'unpublish', from: PUBLISHED_STATE, to: 'draft', label: 'Unpublish' },
  ],
};

/** Who may take a transition that names no roles (the roles that may do the same without workflows). */
const DEFAULT_PUBLISH_ROLES: readonly Role[] = ['owner', 'admin', 'editor', 'publisher'];
const DEFAULT_EDIT_ROLES: readonly Role[] = ['owner', 'admin', 'editor'];

/** Whether items in `state` of `workflow` are live (the state is named `published` or marked so). */
export function isPublishedState(workflow: Workflow, state: string): boolean {
  const definition = workflow.states.find((candidate) => candidate.name === state);
  if (!definition) return false;
  return definition.published ?? definition.name === PUBLISHED_STATE;
}

/**
 * The workflow items of `typeName` follow: the stored workflow whose `types` names it, else
 * the stored one without `types` (the site's catch-all), else {@link DEFAULT_WORKFLOW}.
 */
export function workflowForType(workflows: readonly Workflow[], typeName: string): Workflow {
  return (
    workflows.find((workflow) => workflow.types?.includes(typeName)) ??
    workflows.find((workflow) => workflow.types === undefined) ??
    DEFAULT_WORKFLOW
  );
}

/**
 * Where an item is: its recorded state, kept in step with whether it is live. A live item
 * whose recorded state is not a published one (a release deployment put it live) is in the
 * workflow's `published` state (or its first published state); an item that is not live
 * whose recorded state is a published one (it was unpublished or rolled back) is in the
 * initial state, as is an item with no recorded state or one the workflow does not have.
 */
export function effectiveState(
  workflow: Workflow,
  { recorded, isLive }: { recorded: string | null | undefined; isLive: boolean },
): string {
  const known = recorded ? workflow.states.some((state) => state.name === recorded) : false;
  if (isLive) {
    if (known && isPublishedState(workflow, recorded!)) return recorded!;
    const published = workflow.states.find((state) => isPublishedState(workflow, state.name));
    return published?.name ?? (known ? recorded! : workflow.initial);
  }
  if (known && !isPublishedState(workflow, recorded!)) return recorded!;
  return workflow.initial;
}

/** The roles that may take `transition` of `workflow`. */
export function rolesOf(workflow: Workflow, transition: WorkflowTransitionDefinition): readonly Role[] {
  if (transition.roles) return transition.roles;
  const touchesLive =
    isPublishedState(workflow, transition.from) || isPublishedState(workflow, transition.to);
  return touchesLive ? DEFAULT_PUBLISH_ROLES : DEFAULT_EDIT_ROLES;
}

/** Whether `role` may take `transition`. */
export function mayTake(workflow: Workflow, transition: WorkflowTransitionDefinition, role: Role): boolean {
  return rolesOf(workflow, transition).includes(role);
}

/** Whether the move changes what is live: `true` publishes, `false` takes down, `undefined` neither. */
export function publishesOf(
  workflow: Workflow,
  transition: { from: string; to: string },
): boolean | undefined {
  const wasLive = isPublishedState(workflow, transition.from);
  const willBeLive = isPublishedState(workflow, transition.to);
  if (willBeLive) return true;
  return wasLive ? false : undefined;
}

/** The transitions `role` may take from `state`, as GET /api/workflows/{vvId}/state shows them. */
export function allowedTransitions(
  workflow: Workflow,
  state: string,
  role: Role,
): WorkflowAllowedTransition[] {
  return workflow.transitions
    .filter((transition) => transition.from === state && mayTake(workflow, transition, role))
    .map((transition) => {
      const publishes = publishesOf(workflow, transition);
      return {
        name: transitionNameOf(transition),
        ...(transition.label ? { label: transition.label } : {}),
        to: transition.to,
        requireComment: transition.requireComment === true,
        ...(publishes !== undefined ? { publishes } : {}),
      };
    });
}

/** What a move names: a target state, or a transition by name. */
export interface MoveRequest {
  to?: string | undefined;
  transition?: string | undefined;
  comment?: string | undefined;
}

/**
 * Checks a move of an item in `state` and gives the transition it takes. Refuses with:
 * - 409 `workflow_transition_invalid` when no transition leads from `state` to the target
 *   (or the named transition does not start at `state`, or does not exist);
 * - 403 `workflow_transition_forbidden` when the transitions that do are not open to `role`;
 * - 400 `workflow_comment_required` when the transition needs a comment and none (or only
 *   blanks) was given.
 */
export function planMove({
  workflow,
  itemId,
  state,
  role,
  move,
}: {
  workflow: Workflow;
  itemId: string;
  state: string;
  role: Role;
  move: MoveRequest;
}): WorkflowTransitionDefinition {
  const candidates = workflow.transitions.filter((transition) =>
    move.transition !== undefined
      ? transitionNameOf(transition) === move.transition &&
        (move.to === undefined || transition.to === move.to)
      : transition.to === move.to,
  );
  const fromHere = candidates.filter((transition) => transition.from === state);
  const target = move.transition !== undefined ? `transition \`${move.transition}\`` : `state \`${move.to}\``;
  if (fromHere.length === 0) {
    const next = allowedTransitions(workflow, state, role).map((transition) => `\`${transition.to}\``);
    throw TrellisError.of(
      'workflow_transition_invalid',
      {
        item: itemId,
        state,
        workflow: workflow.name,
        target,
        detail:
          candidates.length > 0
            ? `it starts from ${[...new Set(candidates.map((transition) => `\`${transition.from}\``))].join(', ')}`
            : `the workflow has no such move`,
        next: next.length > 0 ? next.join(', ') : 'nowhere (for your role)',
      },
      { extra: { state, workflow: workflow.name } },
    );
  }
  const permitted = fromHere.find((transition) => mayTake(workflow, transition, role));
  if (!permitted) {
    const roles = [...new Set(fromHere.flatMap((transition) => rolesOf(workflow, transition)))];
    throw TrellisError.of(
      'workflow_transition_forbidden',
      { role, item: itemId, state, target, workflow: workflow.name, roles: roles.join(', ') },
      { extra: { state, workflow: workflow.name, roles } },
    );
  }
  if (permitted.requireComment === true && !move.comment?.trim()) {
    throw TrellisError.of('workflow_comment_required', {
      transition: transitionNameOf(permitted),
      workflow: workflow.name,
    });
  }
  return permitted;
}

/**
 * The move POST …/publish (and POST /api/publish, an import's `publish`) makes for an item in
 * `state`: from a published state it re-publishes the head (allowed to the roles of any
 * transition into a published state); otherwise it is the move into the state `published`
 * (or another published state) from `state`, checked by {@link planMove}. Returns null for a
 * re-publish.
 */
export function planPublish({
  workflow,
  itemId,
  state,
  role,
  comment,
}: {
  workflow: Workflow;
  itemId: string;
  state: string;
  role: Role;
  comment?: string | undefined;
}): WorkflowTransitionDefinition | null {
  const intoLive = workflow.transitions.filter((transition) => isPublishedState(workflow, transition.to));
  if (isPublishedState(workflow, state)) {
    if (intoLive.some((transition) => mayTake(workflow, transition, role))) return null;
    const roles = [...new Set(intoLive.flatMap((transition) => rolesOf(workflow, transition)))];
    throw TrellisError.of(
      'workflow_transition_forbidden',
      {
        role,
        item: itemId,
        state,
        target: 'a published state (re-publish)',
        workflow: workflow.name,
        roles: roles.join(', ') || 'nobody',
      },
      { extra: { state, workflow: workflow.name, roles } },
    );
  }
  const fromHere = intoLive.filter((transition) => transition.from === state);
  const preferred =
    fromHere.find((transition) => transition.to === PUBLISHED_STATE && mayTake(workflow, transition, role)) ??
    fromHere.find((transition) => mayTake(workflow, transition, role)) ??
    fromHere[0];
  return planMove({
    workflow,
    itemId,
    state,
    role,
    move: { to: preferred?.to ?? PUBLISHED_STATE, comment },
  });
}

/**
 * The move POST …/unpublish makes for an item in `state`: none when it is not in a published
 * state (nothing to take down: null), else a transition out of it into a state that is not
 * published, preferring the initial state, checked by {@link planMove}.
 */
export function planUnpublish({
  workflow,
  itemId,
  state,
  role,
}: {
  workflow: Workflow;
  itemId: string;
  state: string;
  role: Role;
}): WorkflowTransitionDefinition | null {
  if (!isPublishedState(workflow, state)) return null;
  const down = workflow.transitions.filter(
    (transition) => transition.from === state && !isPublishedState(workflow, transition.to),
  );
  const preferred =
    down.find((transition) => transition.to === workflow.initial && mayTake(workflow, transition, role)) ??
    down.find((transition) => mayTake(workflow, transition, role)) ??
    down[0];
  return planMove({
    workflow,
    itemId,
    state,
    role,
    move: { to: preferred?.to ?? workflow.initial },
  });
}
