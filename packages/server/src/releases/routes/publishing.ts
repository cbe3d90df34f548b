import { BulkPublishBody, BulkPublishResponse, TrellisError } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import { statusFilter } from '../../content/item-list-query';
import { typeOfId } from '../../content/item-record';
import { getType } from '../../content/type-repository';
import type { GraphReader } from '../../engines/port';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { nodePages } from '../../shared/node-pages';
import { publishThroughWorkflow } from '../../workflows/move-item';
import { getEnvironment } from '../environments';
import { getLiveHead } from '../live-state';
import { BULK_PUBLISH_MAX, defaultPublishEnvironment } from '../publish-items';
import { autoBuild } from './auto-build';

const errors = errorResponses(400, 401, 403, 404, 409);

/** The ids a bulk body names: `ids`, or every item of `type` (narrowed by `status` and `q`). */
async function selectedIds(graph: GraphReader, body: BulkPublishBody): Promise<string[]> {
  if (body.ids) return body.ids;
  const type = await getType(graph, body.type as string);
  const ids: string[] = [];
  for await (const page of nodePages(graph, {
    label: type.nodeLabel,
    where: body.status ? [statusFilter('==', body.status)] : [],
    ...(body.q ? { q: body.q } : {}),
  })) {
    for (const node of page) ids.push(node.id);
    if (ids.length > BULK_PUBLISH_MAX) {
      throw TrellisError.of('business_rule', {
        detail: `more than ${BULK_PUBLISH_MAX} items match; narrow the selection (status, q) or name the ids in calls of at most ${BULK_PUBLISH_MAX}`,
      });
    }
  }
  return ids;
}

/**
 * Bulk publishing (site-scoped): POST /api/publish and POST /api/unpublish change the live
 * state of many items in one call, one transaction and one live revision (docs/releases.md).
 */
export const publishingRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const kind of ['publish', 'unpublish'] as const) {
    app.post(
      `/api/${kind}`,
      {
        schema: {
          tags: ['content'],
          summary:
            kind === 'publish'
              ? 'Publish many items to an environment in one call'
              : 'Take many items out of an environment in one call',
          description: `Names the items by \`ids\` (at most ${BULK_PUBLISH_MAX}) or by \`type\` (every item of it, narrowed by \`status\` and full-text \`q\`). ${
            kind === 'publish'
              ? 'Puts each item’s head version live; every id must exist (400 naming the missing ones, nothing published).'
              : 'Items not live there are counted `unchanged`.'
          } Each item's change is its workflow move (docs/workflows.md): one refused item (403 \`workflow_transition_forbidden\`, 409 \`workflow_transition_invalid\`, 400 \`workflow_comment_required\`, naming it) refuses the call and nothing changes. \`env\` defaults to the lowest-order environment above dev. All in one transaction and one live revision (GET /api/releases/live); with \`autoBuild\` on the environment, one build starts.`,
          body: BulkPublishBody,
          response: { 200: BulkPublishResponse, ...errors },
        },
        config: { siteScope: 'site', permission: 'content:publish' },
      },
      async (request) => {
        const graph = siteOf(request).graph;
        const environment = request.body.env
          ? await getEnvironment(graph, request.body.env)
          : await defaultPublishEnvironment(graph);
        const ids = await selectedIds(graph, request.body);
        const outcome =
          ids.length === 0
            ? { envId: environment.id, changed: [], unchanged: 0, revision: null }
            : await publishThroughWorkflow({
                graph,
                kind,
                environment,
                ids,
                role: siteOf(request).role,
                actor: actorOf(request.principal!),
                now: app.releases.now(),
              });
        for (const id of outcome.changed) {
          app.events.bus.emit({
            type: kind === 'publish' ? 'item.published' : 'item.unpublished',
            siteId: siteOf(request).id,
            data: {
              id,
              type: typeOfId(id),
              environmentId: environment.id,
              actor: actorOf(request.principal!),
            },
          });
        }
        if (outcome.changed.length > 0) await autoBuild(app, request, environment);
        return {
          ok: true,
          envId: outcome.envId,
          changed: outcome.changed.length,
          unchanged: outcome.unchanged,
          ids: outcome.changed,
          revision: outcome.revision ?? (await currentRevision(graph, environment.id)),
        };
      },
    );
  }
};

async function currentRevision(graph: GraphReader, envId: string): Promise<number> {
  return (await getLiveHead(graph, envId)).seq;
}
