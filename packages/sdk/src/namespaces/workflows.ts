import {
  type CreateWorkflowBody,
  type UpdateWorkflowBody,
  Workflow,
  WorkflowItemState,
  WorkflowList,
  type WorkflowTransitionBody,
  WorkflowTransitionResponse,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { createResourceApi, type ResourceApi } from './resource';

/**
 * Workflows (docs/workflows.md): the site's workflow definitions at `/api/workflows` (keyed by
 * name; writes need an admin), an item's place in its workflow and moving it.
 */
export interface WorkflowsApi
  extends ResourceApi<Workflow, z.input<typeof CreateWorkflowBody>, z.input<typeof UpdateWorkflowBody>> {
  /** GET /api/workflows/{vvId}/state: the item's workflow, state, the moves open to the caller and its history. */
  state(itemId: string, options?: CallOptions): Promise<WorkflowItemState>;
  /**
   * POST /api/workflows/{vvId}/transition: moves the item to state `to` (or takes the transition
   * named `transition`). Rejects with an `ApiError` whose `code` is `workflow_transition_forbidden`
   * (403), `workflow_transition_invalid` (409) or `workflow_comment_required` (400).
   */
  transition(
    itemId: string,
    body: z.input<typeof WorkflowTransitionBody>,
    options?: CallOptions,
  ): Promise<WorkflowTransitionResponse>;
}

export function createWorkflowsApi(transport: Transport): WorkflowsApi {
  return {
    ...createResourceApi<
      typeof Workflow,
      typeof WorkflowList,
      z.input<typeof CreateWorkflowBody>,
      z.input<typeof UpdateWorkflowBody>
    >({ transport, base: 'workflows', item: Workflow, list: WorkflowList }),
    state: (itemId, options = {}) =>
      transport.request({
        method: 'get',
        path: `${path('workflows', itemId)}/state`,
        schema: WorkflowItemState,
        ...options,
      }),
    transition: (itemId, body, options = {}) =>
      transport.request({
        method: 'post',
        path: `${path('workflows', itemId)}/transition`,
        schema: WorkflowTransitionResponse,
        json: body,
        ...options,
      }),
  };
}
