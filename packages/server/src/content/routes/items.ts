import {
  AppendBlockBody,
  BlockChangeResponse,
  ContentBlockParams,
  ContentItemParams,
  ContentList,
  ContentListQuery,
  ContentRecord,
  ContentTypePathParams,
  CreateContentBody,
  ItemVersion,
  ItemVersionList,
  ItemVersionParams,
  NoContent,
  PageQuery,
  PublishContentBody,
  PublishContentQuery,
  TrellisError,
  toContentWrite,
  UpdateContentBody,
  validContentItemParams,
} from '@trelliscms/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { type FastifyPluginAsyncZod, validatorCompiler } from 'fastify-type-provider-zod';
import { actorOf } from '../../auth/actor';
import type { Graph, NodeJsonWithEdges } from '../../engines/port';
import { errorResponses } from '../../http/error-responses';
import { expectedVersionFrom } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { readSiteNodeJson, siteGraphOf } from '../../http/plugins/query-timeout';
import { siteOf } from '../../http/site-of';
import { getEnvironment } from '../../releases/environments';
import { defaultPublishEnvironment } from '../../releases/publish-items';
import { autoBuild } from '../../releases/routes/auto-build';
import { hookContext } from '../../scripts/routes/hook-context';
import { afterWrite, beforePublish, withBeforeSave } from '../../scripts/save-hooks';
import { bytesTag, versionTag } from '../../shared/entity-tag';
import { withMoves } from '../../workflows/item-workflow';
import { publishThroughWorkflow } from '../../workflows/move-item';
import { itemListFilter } from '../item-list-query';
import {
  appendBlock,
  assertItemVersion,
  CONTENT_LIST_LIMIT,
  createItem,
  deleteItem,
  getItem,
  getItemJson,
  itemJsonOf,
  listItems,
  removeBlock,
  updateItem,
} from '../item-repository';
import { getType, getTypeForRead, getTypeForWrite, peekTypeForRead } from '../type-repository';
import { getVersion, listVersions } from '../versions';
import { keepEmbedded } from './keep-embedded';

const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * The params validator of GET /api/content/{type}/{id}, the hot read: a valid pair is checked by
 * core's `validContentItemParams` (the value zod would give, without zod's parse); anything
 * else goes to zod, so a bad path is answered with zod's own 400.
 */
export const itemParamsValidator: FastifySchemaCompiler<unknown> = (route) => {
  const full = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.schema !== ContentItemParams) return full;
  return (data: unknown) => {
    const value = validContentItemParams(data);
    return value === null ? full(data) : { value };
  };
};

/** The environment publish stamps when none is given. */

function withEtag(reply: FastifyReply, version: number): FastifyReply {
  return reply.header('ETag', versionTag(version));
}

/** GET item's answer: the record's JSON as built, with its version as the ETag. */
function sendItem(reply: FastifyReply, item: { body: string; version: number }): FastifyReply {
  return withEtag(reply, item.version)
    .type('application/json; charset=utf-8')
    .send(item.body as never);
}

/**
 * GET item's read when its type definition is not in the read cache, or its read was started
 * alongside the access check (Neo4j): the type read, then the item, on the bounded graph.
 */
async function readItemAfresh(
  graph: Graph,
  typeName: string,
  id: string,
  prefetched: Promise<NodeJsonWithEdges | null> | undefined,
): Promise<{ body: string; version: number }> {
  const type = peekTypeForRead(graph, typeName) ?? (await getTypeForRead(graph, typeName));
  // The record's JSON from the props' stored text (the bytes JSON.stringify of the record gives).
  const read = await getItemJson({ graph, type, id, prefetched });
  return { body: read.json, version: read.version };
}

/**
 * Spec §4 Content items (site-scoped). Writes take an expected version, as `If-Match: "<version>"`
 * (the ETag of the last read) or `expectedVersion` / free-form `version` in the body, and answer
 * 409 `version_conflict` when the item moved on. Every write records a new item version
 * (GET …/versions).
 */
export const contentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/content/:type',
    {
      schema: {
        tags: ['content'],
        summary: 'List items of a type',
        description: `A bare array, or with \`withMeta\` the envelope whose \`total\` counts every match; either way the \`X-Total-Count\` header carries that count. \`limit\` defaults to ${CONTENT_LIST_LIMIT.default} (maximum ${CONTENT_LIST_LIMIT.max}), \`offset\` to 0. \`where\` filters by field conditions and \`sort\` orders, in the list language of \`{% list %}\`: \`where=year >= 2000 and tags contains 'sf'\` (\`<field> <op> <value>\` joined by \`and\`, op one of \`== != > >= < <= contains\`; fields are the type's and \`status\`, \`createdAt\`, \`updatedAt\`, \`type\`), \`sort=-year,title\` (\`-\` for descending; missing values last; ties by id). Without \`sort\` the order is by id, or by relevance with \`q\` (full-text). \`status\` is \`draft\` or \`published\`. A \`where\` or \`sort\` that does not parse, names no field of the type, or uses an operator its field cannot take is a 400 \`invalid_list_query\` naming each problem. Listed items carry no relationships (read one item for them).`,
        params: ContentTypePathParams,
        querystring: ContentListQuery,
        response: { 200: ContentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const typeName = request.params.type;
      const { withMeta, q, status, where, sort } = request.query;
      const limit = request.query.limit ?? CONTENT_LIST_LIMIT.default;
      const offset = request.query.offset ?? 0;
      // As GET one item: toContentRecord builds exactly the ContentRecord shape, so the list is
      // sent serialized as it is (not validated item by item by the response schema), and kept
      // briefly by the read cache (retired by any write to the site graph), by its query.
      const query = JSON.stringify([
        withMeta === true,
        limit,
        offset,
        q ?? null,
        status ?? null,
        where ?? null,
        sort ?? null,
      ]);
      const list = await app.trellis.itemReadCache.readList(
        { graphName: site.graphName, typeName, query },
        async () => {
          const graph = site.graph;
          const type = await getTypeForRead(graph, typeName);
          const filter = itemListFilter({ type, where, sort, status });
          const page = filter.isEmpty
            ? { items: [], total: 0 }
            : await listItems({
                graph,
                type,
                limit,
                offset,
                q,
                where: filter.where,
                orderBy: filter.orderBy,
              });
          // The tag conditional-requests.ts would give the body (a hash of its bytes), once per load.
          if (!withMeta) {
            const body = JSON.stringify(page.items);
            return { body, total: page.total, tag: bytesTag(body) };
          }
          const appliedFilters: Record<string, unknown> = {};
          if (q !== undefined) appliedFilters.q = q;
          if (status !== undefined) appliedFilters.status = status;
          if (where !== undefined) appliedFilters.where = where;
          if (sort !== undefined) appliedFilters.sort = sort;
          const envelope = { items: page.items, total: page.total, limit, offset, appliedFilters };
          const body = JSON.stringify(envelope);
          return { body, total: page.total, tag: bytesTag(body) };
        },
      );
      return withTotal(reply, list.total)
        .header('ETag', list.tag)
        .type('application/json; charset=utf-8')
        .send(list.body as never);
    },
  );

  app.post(
    '/api/content/:type',
    {
      schema: {
        tags: ['content'],
        summary: 'Create an item',
        description:
          'Body: `{fields, relationships?}` or a free-form object of fields (`id` and `relationships` are reserved). The id is `<type>:<slug>`, the slug from `id` or the type’s keyField.',
        params: ContentTypePathParams,
        body: CreateContentBody,
        response: { 201: ContentRecord, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getTypeForWrite(graph, request.params.type);
      const hooks = hookContext(app, request);
      const created = await createItem({
        graph,
        type,
        input: await withBeforeSave({
          ctx: hooks,
          type,
          input: toContentWrite(request.body as Record<string, unknown>),
          current: null,
        }),
        actor: actorOf(request.principal!),
      });
      const written =
        (await afterWrite({ ctx: hooks, event: 'afterSave', type, record: created.record })) ?? created;
      await keepEmbedded(app, request, type, written.record);
      emitItem(app, request, 'item.created', {
        id: written.record.id,
        type: type.name,
        version: written.version,
      });
      return withEtag(reply, written.version).status(201).send(written.record);
    },
  );

  app.get(
    '/api/content/:type/:id',
    {
      schema: {
        tags: ['content'],
        summary: 'One item by its full id',
        params: ContentItemParams,
        response: { 200: ContentRecord, ...errors },
      },
      validatorCompiler: itemParamsValidator,
      config: {
        siteScope: 'site',
        permission: 'content:read',
        // On Neo4j the item's read rides in the access-epoch read's round trip (one Bolt round
        // trip per uncached GET instead of two); used only after the access check passed.
        prefetch:
          app.trellis.config.CMS_ENGINE === 'neo4j'
            ? (request, site) => {
                const { type: typeName, id } = request.params as { type: string; id: string };
                app.trellis.itemReadCache.prefetch(request, { graphName: site.graphName, typeName, id }, () =>
                  site.graph.getNodeJsonWithEdges(id),
                );
              }
            : undefined,
      },
    },
    (request, reply) => {
      const site = siteOf(request);
      const { type: typeName, id } = request.params;
      // The hot read path: toContentRecord builds exactly the ContentRecord shape, so the body is
      // sent pre-serialized instead of being re-validated by the response schema on every read,
      // and kept briefly by the item read cache (retired by any write to the site graph).
      const key = { graphName: site.graphName, typeName, id };
      const cache = app.trellis.itemReadCache;
      // A hit is answered synchronously (no promise); a miss (or the cache off) reads the engine.
      const hit = cache.peek(key);
      if (hit !== undefined) {
        sendItem(reply, hit);
        return;
      }
      return cache
        .load(key, () => {
          const prefetched = cache.takePrefetched(request, site.graphName, id);
          // A cached definition without a promise (the common case): the item read on the site's
          // graph bounded by the request's budget without a bounded graph made for it, and the
          // record built in the read's one continuation.
          const type = peekTypeForRead(siteGraphOf(site), typeName);
          if (type !== undefined && prefetched === undefined) {
            return readSiteNodeJson(site, id).then((read) => {
              const item = itemJsonOf(type, id, read);
              return { body: item.json, version: item.version };
            });
          }
          return readItemAfresh(site.graph, typeName, id, prefetched);
        })
        .then((item) => {
          sendItem(reply, item);
        });
    },
  );

  app.patch(
    '/api/content/:type/:id',
    {
      schema: {
        tags: ['content'],
        summary: 'Update an item (partial)',
        description:
          'Given fields replace the stored ones (`null` clears a field); given relationships replace that relationship’s edges. Send `If-Match` or `expectedVersion` to fail with 409 instead of overwriting a concurrent change.',
        params: ContentItemParams,
        body: UpdateContentBody,
        response: { 200: ContentRecord, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getTypeForWrite(graph, request.params.type);
      const given = toContentWrite(request.body as Record<string, unknown>);
      const hooks = hookContext(app, request);
      const input = await withBeforeSave({
        ctx: hooks,
        type,
        input: given,
        current: async () => (await getItem({ graph, type, id: request.params.id })).record,
      });
      const updated = await updateItem({
        graph,
        type,
        id: request.params.id,
        input,
        expectedVersion: expectedVersionFrom(request.headers['if-match']) ?? input.expectedVersion,
        actor: actorOf(request.principal!),
      });
      const written =
        (await afterWrite({ ctx: hooks, event: 'afterSave', type, record: updated.record })) ?? updated;
      if (input.fields && Object.keys(input.fields).length > 0)
        await keepEmbedded(app, request, type, written.record);
      emitItem(app, request, 'item.updated', {
        id: written.record.id,
        type: type.name,
        version: written.version,
      });
      return withEtag(reply, written.version).send(written.record);
    },
  );

  app.delete(
    '/api/content/:type/:id',
    {
      schema: {
        tags: ['content'],
        summary: 'Delete an item, its edges and its version history',
        description:
          'The versions a release includes are kept (the item leaves lists and reads 404, but `GET …/versions/{n}` of a kept version answers and the releases stay deployable); re-creating the item continues its version numbers. An item no release refers to is removed entirely.',
        params: ContentItemParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getType(graph, request.params.type);
      await deleteItem({
        graph,
        type,
        id: request.params.id,
        expectedVersion: expectedVersionFrom(request.headers['if-match']),
        actor: actorOf(request.principal!),
        now: app.releases.now(),
      });
      emitItem(app, request, 'item.deleted', { id: request.params.id, type: type.name });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/content/:type/:id/versions',
    {
      schema: {
        tags: ['content'],
        summary: 'The version history of an item, newest first',
        description: `${WHOLE_LIST_PAGING} Each version lists in \`transitions\` the workflow moves made while it was the head (docs/workflows.md).`,
        params: ContentItemParams,
        querystring: PageQuery,
        response: { 200: ItemVersionList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getType(graph, request.params.type);
      await getItem({ graph, type, id: request.params.id });
      const page = pageOf(await listVersions(graph, request.params.id), request.query);
      return withTotal(reply, page.total).send(await withMoves(graph, request.params.id, page.items));
    },
  );

  app.get(
    '/api/content/:type/:id/versions/:version',
    {
      schema: {
        tags: ['content'],
        summary: 'One recorded version of an item',
        params: ItemVersionParams,
        response: { 200: ItemVersion, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const graph = siteOf(request).graph;
      await getType(graph, request.params.type);
      const version = await getVersion(graph, request.params.id, request.params.version);
      if (!version) {
        throw TrellisError.of('not_found', {
          resource: `Version ${request.params.version} of ${request.params.id}`,
        });
      }
      return (await withMoves(graph, request.params.id, [version]))[0]!;
    },
  );

  app.post(
    '/api/content/:type/:id/blocks',
    {
      schema: {
        tags: ['content'],
        summary: 'Append a block to the item’s body',
        description:
          'At `order` (an index) or at the end. `references` are item ids that must exist. The block is checked against its block type (`/api/block-types`): an unknown `blockType`, a type whose `allowedIn` leaves this content type out, or `fields` that do not match its field definitions (required, type, rules; unknown fields) are 400 `validation_failed` naming the block and the field.',
        params: ContentItemParams,
        body: AppendBlockBody,
        response: { 201: BlockChangeResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getType(graph, request.params.type);
      const written = await appendBlock({
        graph,
        type,
        id: request.params.id,
        block: request.body,
        expectedVersion: expectedVersionFrom(request.headers['if-match']),
        actor: actorOf(request.principal!),
      });
      emitItem(app, request, 'item.updated', {
        id: request.params.id,
        type: type.name,
        version: written.version,
      });
      return withEtag(reply, written.version)
        .status(201)
        .send({
          ok: true as const,
          id: request.params.id,
          block: written.block,
          body: written.record.body!,
          version: written.version,
        });
    },
  );

  app.delete(
    '/api/content/:type/:id/blocks/:bid',
    {
      schema: {
        tags: ['content'],
        summary: 'Remove a block from the item’s body',
        params: ContentBlockParams,
        response: { 200: BlockChangeResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      const type = await getType(graph, request.params.type);
      const written = await removeBlock({
        graph,
        type,
        id: request.params.id,
        blockId: request.params.bid,
        expectedVersion: expectedVersionFrom(request.headers['if-match']),
        actor: actorOf(request.principal!),
      });
      emitItem(app, request, 'item.updated', {
        id: request.params.id,
        type: type.name,
        version: written.version,
      });
      return withEtag(reply, written.version).send({
        ok: true as const,
        id: request.params.id,
        block: written.block,
        body: written.record.body!,
        version: written.version,
      });
    },
  );

  const publishRoute = (kind: 'publish' | 'unpublish') =>
    app.post(
      `/api/content/:type/:id/${kind}`,
      {
        schema: {
          tags: ['content'],
          summary:
            kind === 'publish' ? 'Publish an item to an environment' : 'Take an item out of an environment',
          description:
            kind === 'publish'
              ? 'Puts the item’s head version live in the environment (query `env`, else body `env`, else the lowest-order environment above dev, `prod` unless others were added): the environment’s next build renders that version, whatever is edited after. Sets status `published` and adds the environment to `publishedEnvs`; records no new version (the ETag stays). With `expectedVersion` (or If-Match), 409 `version_conflict` unless that is the head. The environment must exist on the site (400 `unknown_environment`: publishing never creates one). When the environment has `autoBuild`, a build of it starts. A publish is a workflow move into the `published` state (docs/workflows.md): when the item’s workflow has no such move from its state, 409 `workflow_transition_invalid`; when the caller’s role may not take it, 403 `workflow_transition_forbidden`; when it needs a comment, 400 `workflow_comment_required` (use POST /api/workflows/{vvId}/transition). With the built-in workflow, every role that may publish can.'
              : 'Takes the item out of the environment’s live state (same `env` rule as publish): its next build gives the item the stub page. Removes the environment from `publishedEnvs` (status `draft` when it is live nowhere). When the environment has `autoBuild`, a build of it starts. Taking an item down from the last environment it is live in is the workflow move out of `published` (same refusals as publish).',
          params: ContentItemParams,
          querystring: PublishContentQuery,
          body: PublishContentBody.nullable().optional(),
          response: { 200: ContentRecord, ...errors },
        },
        config: { siteScope: 'site', permission: 'content:publish' },
      },
      async (request, reply) => {
        const graph = siteOf(request).graph;
        const type = await getType(graph, request.params.type);
        const named = request.query.env ?? request.body?.env;
        const environment = named
          ? await getEnvironment(graph, named)
          : await defaultPublishEnvironment(graph);
        const id = request.params.id;
        const current = await getItem({ graph, type, id });
        const expected = expectedVersionFrom(request.headers['if-match']) ?? request.body?.expectedVersion;
        if (kind === 'publish') assertItemVersion(id, expected, current.version);
        const hooks = hookContext(app, request);
        if (kind === 'publish') await beforePublish({ ctx: hooks, type, record: current.record });
        const outcome = await publishThroughWorkflow({
          graph,
          kind,
          environment,
          ids: [id],
          role: siteOf(request).role,
          actor: actorOf(request.principal!),
          now: app.releases.now(),
        });
        for (const changed of outcome.changed) {
          emitItem(app, request, kind === 'publish' ? 'item.published' : 'item.unpublished', {
            id: changed,
            type: type.name,
            environmentId: environment.id,
          });
        }
        if (outcome.changed.length > 0) await autoBuild(app, request, environment);
        if (kind === 'publish' && outcome.changed.length > 0) {
          const published = await getItem({ graph, type, id });
          await afterWrite({ ctx: hooks, event: 'afterPublish', type, record: published.record });
        }
        const written = await getItem({ graph, type, id });
        return withEtag(reply, written.version).send(written.record);
      },
    );
  publishRoute('publish');
  publishRoute('unpublish');
};

/** Tells the event stream about a change to an item of the request's site (never fails the request). */
function emitItem(
  app: FastifyInstance,
  request: FastifyRequest,
  type: 'item.created' | 'item.updated' | 'item.deleted' | 'item.published' | 'item.unpublished',
  data: { id: string; type: string; version?: number; environmentId?: string },
): void {
  app.events.bus.emit({
    type,
    siteId: siteOf(request).id,
    data: { ...data, actor: request.principal ? actorOf(request.principal) : null },
  });
}
