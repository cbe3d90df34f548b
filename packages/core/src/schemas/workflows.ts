import { z } from 'zod';
import { ContentId, DateTime, ResourceName, Role, TypeName } from './common';

/**
 * Workflows (`/api/workflows`) are the editorial states an item moves through. A workflow
 * names its `states` (one `initial`; `published` is the state POST /content/{type}/{id}/publish
 * moves to) and the allowed `transitions` between them, each optionally limited to some roles.
 * It applies to the content types in `types` (every type when absent). The default workflow is
 * `draft` -> `review` -> `published` -> `archived`, with `draft` <- `review` and `published`
 * -> `draft`.
 *
 * An item's place in its workflow (GET /api/workflows/{vvId}/state, `vvId` the item id) is a
 * {@link WorkflowItemState}; POST /api/workflows/{vvId}/transition moves it.
 */
export const WorkflowStateName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase state name such as review');

/** A state of a workflow. `published` marks states whose items are live. */
export const WorkflowStateDefinition = z
  .object({
    name: WorkflowStateName,
    label: z.string().max(200).optional(),
    published: z.boolean().optional(),
  })
  .meta({ id: 'WorkflowStateDefinition' });
export type WorkflowStateDefinition = z.infer<typeof WorkflowStateDefinition>;

/** An allowed move between two states; `roles` limits who may make it (any editor when absent). */
export const WorkflowTransitionDefinition = z
  .object({
    from: WorkflowStateName,
    to: WorkflowStateName,
    name: z.string().max(100).optional(),
    roles: z.array(Role).optional(),
  })
  .meta({ id: 'WorkflowTransitionDefinition' });
export type WorkflowTransitionDefinition = z.infer<typeof WorkflowTransitionDefinition>;

const workflowShape = {
  name: ResourceName,
  description: z.string().max(2000).optional(),
  states: z.array(WorkflowStateDefinition).min(1).max(50),
  initial: WorkflowStateName,
  transitions: z.array(WorkflowTransitionDefinition).max(500),
  types: z.array(TypeName).optional(),
};

type WorkflowLike = {
  states: { name: string }[];
  initial: string;
  transitions: { from: string; to: string }[];
};

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
  }
}

/** A workflow (GET /api/workflows entries). */
export const Workflow = z
  .object({ ...workflowShape, createdAt: DateTime.optional(), updatedAt: DateTime.optional() })
  .meta({
    id: 'Workflow',
    description:
      'The editorial states an item moves through: states (one initial; published ones are live), the allowed transitions (optionally limited to roles) and the content types it applies to.',
  });
export type Workflow = z.infer<typeof Workflow>;

/** GET /api/workflows */
export const WorkflowList = z.array(Workflow).meta({ id: 'WorkflowList' });
export type WorkflowList = z.infer<typeof WorkflowList>;

/** POST /api/workflows: states must be distinct, and `initial` and every transition end must be states. */
export const CreateWorkflowBody = z
  .object(workflowShape)
  .superRefine(checkWorkflow)
  .meta({ id: 'CreateWorkflowBody' });
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

/** One move in an item's history. */
export const WorkflowHistoryEntry = z
  .object({
    from: z.string().nullable(),
    to: z.string(),
    at: DateTime,
    by: z.string().nullable().optional(),
    comment: z.string().nullable().optional(),
  })
  .meta({ id: 'WorkflowHistoryEntry' });
export type WorkflowHistoryEntry = z.infer<typeof WorkflowHistoryEntry>;

/** GET /api/workflows/{vvId}/state: where an item is, and where it may go next. */
export const WorkflowItemState = z
  .object({
    versionableId: ContentId,
    workflow: z.string(),
    state: z.string(),
    /** The states the caller may move the item to now. */
    next: z.array(z.string()),
    updatedAt: DateTime.nullable().optional(),
    updatedBy: z.string().nullable().optional(),
    history: z.array(WorkflowHistoryEntry).optional(),
  })
  .meta({ id: 'WorkflowItemState' });
export type WorkflowItemState = z.infer<typeof WorkflowItemState>;

/** POST /api/workflows/{vvId}/transition: the state to move to, with an optional comment. */
export const WorkflowTransitionBody = z
  .object({
    to: WorkflowStateName,
    comment: z.string().max(2000).optional(),
  })
  .meta({ id: 'WorkflowTransitionBody' });
export type WorkflowTransitionBody = z.infer<typeof WorkflowTransitionBody>;

/** Path parameters of /api/workflows/{vvId}/...: the item id. */
export const WorkflowItemParams = z.object({ vvId: ContentId });
export type WorkflowItemParams = z.infer<typeof WorkflowItemParams>;
