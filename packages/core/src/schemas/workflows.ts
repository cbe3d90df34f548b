import { z } from 'zod';
import { ContentId, DateTime, ResourceName, Role, TypeName } from './common';

/**
 * Workflows (`/api/workflows`) are the editorial states an item moves through (docs/workflows.md).
 * A workflow names its `states` (one `initial`; a state named `published`, or marked
 * `published: true`, is live: entering it puts the item's head version live, leaving it for
 * a state that is not takes the item down) and the allowed `transitions` between them, each
 * limited to some site roles and optionally requiring a comment. It applies to the content
 * types in `types` (every type no other workflow names when absent). Items of a type no
 * workflow covers follow the built-in `default` workflow: `draft` ⇄ `published`, which is
 * exactly what POST /content/{type}/{id}/publish and /unpublish do.
 *
 * An item's place in its workflow (GET /api/workflows/{vvId}/state, `vvId` the item id) is a
 * {@link WorkflowItemState}; POST /api/workflows/{vvId}/transition moves it.
 */
export const WorkflowStateName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase state name such as review');

/** A state of a workflow. `published` (implied for the state named `published`) marks states whose items are live. */
export const WorkflowStateDefinition = z
  .object({
    name: WorkflowStateName,
    label: z.string().max(200).optional(),
    published: z.boolean().optional(),
  })
  .meta({ id: 'WorkflowStateDefinition' });
export type WorkflowStateDefinition = z.infer<typeof WorkflowStateDefinition>;

/** The roles a transition can be given to: every site role but `viewer` (viewers never write). */
export const WorkflowRole = Role.exclude(['viewer']).meta({ id: 'WorkflowRole' });
export type WorkflowRole = z.infer<typeof WorkflowRole>;

/**
 * An allowed move between two states. `roles` are the site roles that may make it (exactly
 * those: roles are not ranked here); when absent, the roles that may do the same today — owner,
 * admin, editor and publisher for a move into or out of a published state, owner, admin and
 * editor otherwise. `requireComment` refuses the move without a comment (400).
 */
export const WorkflowTransitionDefinition = z
  .object({
    from: WorkflowStateName,
    to: WorkflowStateName,
    /** Names the move (`submit`, `approve`); default `<from>-to-<to>`. */
    name: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase name such as approve')
      .optional(),
    label: z.string().max(200).optional(),
    roles: z.array(WorkflowRole).min(1).max(4).optional(),
    requireComment: z.boolean().optional(),
  })
  .meta({ id: 'WorkflowTransitionDefinition' });
export type WorkflowTransitionDefinition = z.infer<typeof WorkflowTransitionDefinition>;

const workflowShape = {
  name: ResourceName,
  description: z.string().max(2000).optional(),
  states: z.array(WorkflowStateDefinition).min(1).max(50),
  initial: WorkflowStateName,
  transitions: z.array(WorkflowTransitionDefinition).max(500),
  types: z.array(TypeName).max(500).optional(),
};

type WorkflowLike = {
  states: { name: string; published?: boolean | undefined }[];
  initial: string;
  transitions: { from: string; to: string; name?: string | undefined }[];
};

/** The name of a transition: its own, else `<from>-to-<to>`. */
export function transitionNameOf(transition: {
  from: string;
  to: string;
  name?: string | undefined;
}): string {
  return transition.name ?? `${transition.from}-to-${transition.to}`;
}

function checkWorkflow(workflow: WorkflowLike, ctx: z.RefinementCtx): void {
  const names = new Set(workflow.states.map((state) => state.name));
  if (names.size !== workflow.states.length) {
    ctx.addIssue({ code: 'custom', path: ['states'], message: 'state names must be distinct' });
  }
  if (!names.has(workflow.initial)) {
    ctx.addIssue({
      code: 'custom',
      path: ['initial'],
      message: `initial state ${workflow.initial} is not in states`,
    });
  }
  const initial = workflow.states.find((state) => state.name === workflow.initial);
  if (
    initial &&
    (initial.published === true || (initial.name === 'published' && initial.published !== false))
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['initial'],
      message: 'the initial state cannot be a published state',
    });
  }
  const transitionNames = new Set<string>();
  for (const [index, transition] of workflow.transitions.entries()) {
    for (const end of ['from', 'to'] as const) {
      if (!names.has(transition[end])) {
        ctx.addIssue({
          code: 'custom',
          path: ['transitions', index, end],
          message: `state ${transition[end]} is not in states`,
        });
      }
    }
    const name = transitionNameOf(transition);
    if (transitionNames.has(name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['transitions', index, 'name'],
        message: `transition name ${name} is used twice`,
      });
    }
    transitionNames.add(name);
  }
}

/** A workflow (GET /api/workflows entries). */
export const Workflow = z
  .object({ ...workflowShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'Workflow',
    description:
      'The editorial states an item moves through: states (one initial; published ones are live), the allowed transitions (each limited to site roles, optionally requiring a comment) and the content types it applies to.',
  });
export type Workflow = z.infer<typeof Workflow>;

/** GET /api/workflows (the built-in `default` workflow is not stored, so not listed). */
export const WorkflowList = z.array(Workflow).meta({ id: 'WorkflowList' });
export type WorkflowList = z.infer<typeof WorkflowList>;

/** POST /api/workflows: states must be distinct, and `initial` and every transition end must be states. */
export const CreateWorkflowBody = z
  .object(workflowShape)
  .superRefine(checkWorkflow)
  .meta({ id: 'CreateWorkflowBody' });
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

/** PATCH or PUT /api/workflows/{name}: the given keys replace the stored ones (the result is checked as on create). */
export const UpdateWorkflowBody = z
  .object({
    description: workflowShape.description.nullable(),
    states: workflowShape.states,
    initial: workflowShape.initial,
    transitions: workflowShape.transitions,
    types: workflowShape.types.nullable(),
  })
  .partial()
  .meta({ id: 'UpdateWorkflowBody' });
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;

/** A merged workflow after an update: the rules of {@link CreateWorkflowBody}. */
export const WorkflowRules = z.object(workflowShape).superRefine(checkWorkflow);

/** Path parameters of /api/workflows/{name}. */
export const WorkflowParams = z.object({ name: ResourceName });
export type WorkflowParams = z.infer<typeof WorkflowParams>;

/** One move in an item's history (newest first in {@link WorkflowItemState.history}, and on its item version). */
export const WorkflowHistoryEntry = z
  .object({
    from: z.string().nullable(),
    to: z.string(),
    at: DateTime,
    by: z.string().nullable().optional(),
    comment: z.string().nullable().optional(),
    /** The workflow and the transition taken (`publish` for POST …/publish and /api/publish). */
    workflow: z.string().optional(),
    transition: z.string().optional(),
    /** The item version that was head when it moved. */
    version: z.number().int().min(1).optional(),
    /** The role the mover acted with. */
    role: z.string().optional(),
  })
  .meta({ id: 'WorkflowHistoryEntry' });
export type WorkflowHistoryEntry = z.infer<typeof WorkflowHistoryEntry>;

/** A transition the caller can take from the item's state now. */
export const WorkflowAllowedTransition = z
  .object({
    name: z.string(),
    label: z.string().optional(),
    to: z.string(),
    requireComment: z.boolean(),
    /** Whether taking it puts the item live (`true`) or takes it down (`false`); absent when neither. */
    publishes: z.boolean().optional(),
  })
  .meta({ id: 'WorkflowAllowedTransition' });
export type WorkflowAllowedTransition = z.infer<typeof WorkflowAllowedTransition>;

/** GET /api/workflows/{vvId}/state: where an item is, and where it may go next. */
export const WorkflowItemState = z
  .object({
    versionableId: ContentId,
    workflow: z.string(),
    state: z.string(),
    /** Whether the item is live in some environment (its state is then a published one). */
    live: z.boolean(),
    publishedEnvs: z.array(z.string()),
    /** The states the caller may move the item to now. */
    next: z.array(z.string()),
    /** The transitions the caller may take now. */
    allowed: z.array(WorkflowAllowedTransition),
    updatedAt: DateTime.nullable().optional(),
    updatedBy: z.string().nullable().optional(),
    history: z.array(WorkflowHistoryEntry).optional(),
  })
  .meta({ id: 'WorkflowItemState' });
export type WorkflowItemState = z.infer<typeof WorkflowItemState>;

/**
 * POST /api/workflows/{vvId}/transition: the state to move to (`to`) or the transition to take
 * (`transition`, by name), with a comment. A move into a published state publishes to `env`
 * (default: the environment POST …/publish uses); `expectedVersion` makes it 409 unless the
 * item is still at that version.
 */
export const WorkflowTransitionBody = z
  .object({
    to: WorkflowStateName.optional(),
    transition: z.string().min(1).max(100).optional(),
    comment: z.string().max(2000).optional(),
    env: z.string().min(1).max(100).optional(),
    expectedVersion: z.number().int().min(1).optional(),
  })
  .refine((body) => body.to !== undefined || body.transition !== undefined, {
    message: 'give `to` (a state) or `transition` (a transition name)',
    path: ['to'],
  })
  .meta({ id: 'WorkflowTransitionBody' });
export type WorkflowTransitionBody = z.infer<typeof WorkflowTransitionBody>;

/** POST /api/workflows/{vvId}/transition: the move made and the item's state after it. */
export const WorkflowTransitionResponse = z
  .object({
    ok: z.literal(true),
    transition: WorkflowHistoryEntry,
    state: WorkflowItemState,
  })
  .meta({ id: 'WorkflowTransitionResponse' });
export type WorkflowTransitionResponse = z.infer<typeof WorkflowTransitionResponse>;

/** Path parameters of /api/workflows/{vvId}/...: the item id. */
export const WorkflowItemParams = z.object({ vvId: ContentId });
export type WorkflowItemParams = z.infer<typeof WorkflowItemParams>;
