import {
  allowedTransitions,
  type Role,
  TrellisError,
  WorkflowItemParams,
  WorkflowItemState,
  WorkflowTransitionBody,
  WorkflowTransitionResponse,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { CONTENT_LABEL, typeOfId } from '../../content/item-record';
import type { GraphReader } from '../../engines/port';
import { errorResponses } from '../../http/error-responses';
import { expectedVersionFrom } from '../../http/etag';
import { siteOf } from '../../http/site-of';
import { autoBuild } from '../../releases/routes/auto-build';
import { registerSiteResource } from '../../site-resources/routes/register-site-resource';
import { registerSiteResourceDelete } from '../../site-resources/routes/register-site-resource-delete';
import { listMoves, readItemStates } from '../item-workflow';
import { moveItem } from '../move-item';
import { listWorkflows, WORKFLOWS } from '../workflow-definitions';

const errors = errorResponses(400, 401, 403, 404, 409);

/** An item's state as GET /api/workflows/{vvId}/state shows it to a caller with `role`. */
async function stateView(reader: GraphReader, itemId: string, role: Role): Promise<WorkflowItemState> {
  const node = await reader.getNode(itemId);
  if (!node?.labels.includes(CONTENT_LABEL)) {
    throw TrellisError.of('not_found', { resource: `Item \`${itemId}\`` });
  }
  const current = (await readItemStates(reader, await listWorkflows(reader), [node])).get(itemId)!;
  const allowed = allowedTransitions(current.workflow, current.state, role);
  return {
    versionableId: itemId,
    workflow: current.workflow.name,
    state: current.state,
    live: current.isLive,
    publishedEnvs: current.publishedEnvs,
    next: [...new Set(allowed.map((transition) => transition.to))],
    allowed,
    updatedAt: current.updatedAt,
    updatedBy: current.updatedBy,
    history: await listMoves(reader, itemId),
  };
}

/**
 * Workflows (docs/workflows.md): CRUD of the site's workflow definitions (the generic site
 * resource routes, admin-only writes), an item's state (`GET /api/workflows/{vvId}/state`) and
 * moving it (`POST /api/workflows/{vvId}/transition`).
 */
export const workflowRoutes: FastifyPluginAsyncZod = async (app) => {
  registerSiteResource(app, WORKFLOWS);
  registerSiteResourceDelete(app, WORKFLOWS);

  app.get(
    '/api/workflows/:vvId/state',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Where an item is in its workflow, and where the caller may move it',
        description:
          '`vvId` is the item id (`<type>:<slug>`). `state` is kept in step with the live state (an item live in some environment is in a published state). `allowed` lists the transitions open to the caller’s role from here; `history` lists every move, newest first.',
        params: WorkflowItemParams,
        response: { 200: WorkflowItemState, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const site = siteOf(request);
      return stateView(site.graph, request.params.vvId, site.role);
    },
  );

  app.post(
    '/api/workflows/:vvId/transition',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Move an item along its workflow',
        description:
          'Give the target state (`to`) or the transition (`transition`, by name). 409 `workflow_transition_invalid` when no transition leads there from the item’s state; 403 `workflow_transition_forbidden` when the caller’s role may not take it; 400 `workflow_comment_required` when it needs a `comment`. Entering a published state puts the head version live in `env` (default: the environment POST …/publish uses), exactly as a publish does (autoBuild included); leaving one takes the item down everywhere it is live. Every move is audited (`workflow.transition`) and recorded in the item’s history. With `If-Match` or `expectedVersion`, 409 `version_conflict` unless the item is at that version.',
        params: WorkflowItemParams,
        body: WorkflowTransitionBody,
        response: { 200: WorkflowTransitionResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:publish' },
    },
    async (request) => {
      const site = siteOf(request);
      const { to, transition, comment, env, expectedVersion } = request.body;
      const outcome = await moveItem({
        graph: site.graph,
        itemId: request.params.vvId,
        role: site.role,
        actor: actorOf(request.principal!),
        move: { to, transition, comment },
        env,
        expectedVersion: expectedVersionFrom(request.headers['if-match']) ?? expectedVersion,
        now: app.releases.now(),
      });
      for (const environment of outcome.changedEnvironments) {
        // A move into or out of a published state is a publish or unpublish, as the shortcut's.
        if (outcome.liveChange) {
          app.events.bus.emit({
            type: outcome.liveChange === 'publish' ? 'item.published' : 'item.unpublished',
            siteId: site.id,
            data: {
              id: request.params.vvId,
              type: typeOfId(request.params.vvId),
              environmentId: environment.id,
              actor: actorOf(request.principal!),
            },
          });
        }
        await autoBuild(app, request, environment);
      }
      return {
        ok: true as const,
        transition: outcome.entry,
        state: await stateView(site.graph, request.params.vvId, site.role),
      };
    },
  );
};
