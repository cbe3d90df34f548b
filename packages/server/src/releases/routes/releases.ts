import {
  AddIncludeBody,
  CreateReleaseBody,
  type Deployment,
  DeploymentList,
  DeploymentParams,
  DeploymentQueueQuery,
  Deployment as DeploymentSchema,
  DeployReleaseBody,
  DripPreviewBody,
  DripPreviewResponse,
  DripScheduleBody,
  DripScheduleResponse,
  Environment,
  EnvironmentList,
  EnvironmentParams,
  ListDeploymentsQuery,
  ListReleasesQuery,
  LiveState,
  LiveStateQuery,
  NoContent,
  PageQuery,
  planDrip,
  QueryFlag,
  Release,
  ReleaseList,
  ReleaseParams,
  ReleaseTransitionBody,
  ReplayQuery,
  ReplayResponse,
  RollbackDeploymentBody,
  TrellisError,
  UpsertEnvironmentBody,
} from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { roleAtLeast } from '../../auth/permissions';
import { errorResponses } from '../../http/error-responses';
import { ifMatchOf, withEtag } from '../../http/etag';
import { pageOf, WHOLE_LIST_PAGING, withTotal } from '../../http/list-page';
import { siteOf, siteViewOf } from '../../http/site-of';
import { deleteEnvironment } from '../delete-environment';
import { deleteRelease } from '../delete-release';
import {
  deploymentQueue,
  deployRelease,
  getDeployment,
  listDeployments,
  liveStateAt,
  replay,
  retryDeployment,
  scheduleDrip,
} from '../deployments';
import { environmentTag, getEnvironment, listEnvironments, upsertEnvironment } from '../environments';
import { getLiveHead } from '../live-state';
import { addInclude, createRelease, getRelease, listReleases, transitionRelease } from '../releases';

const errors = errorResponses(400, 401, 403, 404, 409);

function plan(body: DripPreviewBody): {
  timestamps: string[];
  pairs?: Array<{ releaseId: string; validFrom: string }>;
} {
  const count = body.releaseIds?.length ?? body.count ?? 0;
  const timestamps = planDrip({
    count,
    windowStartMs: Date.parse(body.windowStart),
    windowEndMs: Date.parse(body.windowEnd),
    pattern: body.pattern,
    maxJitterMs: body.maxJitterMs,
    minSpacingMs: body.minSpacingMs,
    seed: body.seed,
  }).map((ms) => new Date(ms).toISOString());
  const pairs = body.releaseIds?.map((releaseId, index) => ({
    releaseId,
    validFrom: timestamps[index] as string,
  }));
  return pairs ? { timestamps, pairs } : { timestamps };
}

/**
 * Spec §4 Releases, environments, deployments, drip publishing, replay (site-scoped). Rules
 * live in core `release/` and `releases/`; a deployment due now is built and switched in by
 * the release publisher before the answer (unless `async`); the scheduler (releases-plugin)
 * takes future ones live at their validFrom, built ahead (docs/releases.md).
 */
/** The paging note of the release lists. */
const PAGING =
  '`limit` and `offset` page the list; the `X-Total-Count` header counts every record that matches.';

export const releasesRoutes: FastifyPluginAsyncZod = async (app) => {
  const now = () => app.releases.now();

  app.get(
    '/api/releases/environments',
    {
      schema: {
        tags: ['releases'],
        summary: 'The site’s environments (dev and prod exist by default)',
        description: WHOLE_LIST_PAGING,
        querystring: PageQuery,
        response: { 200: EnvironmentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = pageOf(await listEnvironments(siteOf(request).graph), request.query);
      return withTotal(reply, page.total).send(page.items);
    },
  );

  app.put(
    '/api/releases/environments/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'Create or replace an environment (admins)',
        description:
          'Environments are site settings: changing `requiresApproval`, `autoBuild`, `order` or the public URL needs an admin of the site (403 otherwise). Environments are never created on first use; this is the one way to add one. The answer’s `ETag` is the environment’s: with `If-Match`, 409 `version_conflict` unless the environment exists and has not changed since.',
        params: EnvironmentParams,
        body: UpsertEnvironmentBody,
        response: { 200: Environment, ...errors },
      },
      config: { siteScope: 'site', permission: 'site:update' },
    },
    async (request, reply) => {
      const environment = await upsertEnvironment({
        graph: siteOf(request).graph,
        id: request.params.id,
        body: request.body,
        actor: actorOf(request.principal!),
        precondition: ifMatchOf(request),
      });
      return withEtag(reply, environmentTag(environment)).send(environment);
    },
  );

  app.delete(
    '/api/releases/environments/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'Delete an environment (admins)',
        description:
          '`env:dev` and `env:prod` always exist: 409 `conflict`. 404 for an environment the site does not have. 409 `in_use` while a pending deployment targets it or an item is live there, naming them (`holders`); unpublish those items first (no cascade). Its deployments and live revisions stay as history; an environment created again under the name continues it. The files of its last build are not removed.',
        params: EnvironmentParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'site:update' },
    },
    async (request, reply) => {
      await deleteEnvironment({
        graph: siteOf(request).graph,
        nameOrId: request.params.id,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/releases',
    {
      schema: {
        tags: ['releases'],
        summary: 'Releases, newest first, optionally by state',
        description: PAGING,
        querystring: ListReleasesQuery,
        response: { 200: ReleaseList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const page = await listReleases(siteOf(request).graph, request.query);
      withTotal(reply, page.total);
      return page.items;
    },
  );

  app.post(
    '/api/releases',
    {
      schema: {
        tags: ['releases'],
        summary: 'Create a draft release',
        description:
          'Each include must name a stored content item version (`kind: content`) with its hash; 400 otherwise. 409 when the release exists.',
        body: CreateReleaseBody,
        response: { 201: Release, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:manage' },
    },
    async (request, reply) => {
      const release = await createRelease({
        graph: siteOf(request).graph,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      });
      return reply.status(201).send(release);
    },
  );

  app.get(
    '/api/releases/deployments',
    {
      schema: {
        tags: ['releases'],
        summary: 'Recent deployments, newest first',
        description: PAGING,
        querystring: ListDeploymentsQuery,
        response: { 200: DeploymentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      if (request.query.envId) await getEnvironment(graph, request.query.envId);
      const page = await listDeployments(graph, request.query);
      withTotal(reply, page.total);
      return page.items;
    },
  );

  app.get(
    '/api/releases/queue',
    {
      schema: {
        tags: ['releases'],
        summary: 'Future-dated pending deployments, soonest first',
        description: PAGING,
        querystring: DeploymentQueueQuery,
        response: { 200: DeploymentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request, reply) => {
      const graph = siteOf(request).graph;
      if (request.query.envId) await getEnvironment(graph, request.query.envId);
      const page = await deploymentQueue(graph, { ...request.query, now: now() });
      withTotal(reply, page.total);
      return page.items;
    },
  );

  app.get(
    '/api/releases/replay',
    {
      schema: {
        tags: ['releases'],
        summary: 'What was live in an environment at a time (default now)',
        querystring: ReplayQuery,
        response: { 200: ReplayResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const graph = siteOf(request).graph;
      await getEnvironment(graph, request.query.envId);
      const at = now();
      return replay(graph, {
        envId: request.query.envId,
        at: request.query.atTime ? new Date(request.query.atTime) : at,
        now: at,
      });
    },
  );

  app.get(
    '/api/releases/live',
    {
      schema: {
        tags: ['releases'],
        summary: 'Every item live in an environment, now or at any time',
        description:
          'The live state: for each item, the version the environment serves, since when and what put it there (a publish or a deployment). A past `atTime` is read back from the recorded live revisions; a future one applies the pending deployments due by then. `buildId` is the build serving the environment now.',
        querystring: LiveStateQuery,
        response: { 200: LiveState, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const graph = siteOf(request).graph;
      const environment = await getEnvironment(graph, request.query.envId);
      const current = now();
      const at = request.query.atTime ? new Date(request.query.atTime) : current;
      const state = await liveStateAt(graph, { envId: environment.id, at, now: current });
      const head = await getLiveHead(graph, environment.id);
      return {
        envId: environment.id,
        atTime: at.toISOString(),
        revision: state.seq,
        buildId: request.query.atTime ? null : head.buildId,
        items: [...state.live.values()].sort((a, b) => a.itemId.localeCompare(b.itemId)),
      };
    },
  );

  app.get(
    '/api/releases/deployments/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'One deployment (poll it after an async deploy)',
        params: DeploymentParams,
        response: { 200: DeploymentSchema, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => getDeployment(siteOf(request).graph, request.params.id),
  );

  app.post(
    '/api/releases/deployments/:id/retry',
    {
      schema: {
        tags: ['releases'],
        summary: 'Try a failed deployment again',
        description:
          'A `failed` deployment (its build failed; the previous site stayed live) goes back to pending and, when its validFrom has come, is built and switched in before the answer (with `?async=1`, in the background). 409 unless it failed.',
        params: DeploymentParams,
        querystring: z.object({ async: QueryFlag.optional() }),
        response: { 200: DeploymentSchema, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:deploy' },
    },
    async (request) => {
      const { graph } = siteOf(request);
      const pending = await retryDeployment({
        graph,
        id: request.params.id,
        actor: actorOf(request.principal!),
      });
      return takeLive(app, request, pending, request.query.async === true);
    },
  );

  app.post(
    '/api/releases/drip-preview',
    {
      schema: {
        tags: ['releases'],
        summary: 'Plan drip timestamps (writes nothing)',
        description:
          'Give `count` or `releaseIds`. `even` spreads from windowStart to windowEnd; `random` and `jittered` use a PRNG seeded by `seed` (the same seed plans the same schedule). 400 when minSpacingMs does not fit the window.',
        body: DripPreviewBody,
        response: { 200: DripPreviewResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:manage' },
    },
    async (request) => {
      const { timestamps, pairs } = plan(request.body);
      return pairs ? { schedule: { timestamps }, pairs } : { schedule: { timestamps } };
    },
  );

  app.post(
    '/api/releases/drip-schedule',
    {
      schema: {
        tags: ['releases'],
        summary: 'Schedule one deployment per release at the planned timestamps (atomic)',
        description:
          'Every release must exist (404), be approved or deployed and pass its review gate (409), or nothing is scheduled.',
        body: DripScheduleBody,
        response: { 201: DripScheduleResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:deploy' },
    },
    async (request, reply) => {
      const { timestamps, pairs } = plan(request.body);
      const { deployments } = await scheduleDrip({
        graph: siteOf(request).graph,
        environmentId: request.body.environmentId,
        pairs: pairs ?? [],
        actor: actorOf(request.principal!),
        now: now(),
      });
      app.releases.poke();
      for (const deployment of deployments) emitScheduled(app, siteOf(request).id, deployment);
      return reply.status(201).send({ schedule: { timestamps }, deployments });
    },
  );

  app.post(
    '/api/releases/deployments/:id/rollback',
    {
      schema: {
        tags: ['releases'],
        summary: 'Roll a deployment back to an older release',
        description:
          'Switches the environment back to the build that served `rollbackToReleaseId` (a release that was live in the same environment) — one pointer write, no render — and restores the live state as it was then. Marks the deployment superseded and records a new, live, audit-stamped deployment of the older release (one audit entry). 409 unless the deployment is deployed.',
        params: DeploymentParams,
        body: RollbackDeploymentBody,
        response: { 201: DeploymentSchema, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:deploy' },
    },
    async (request, reply) => {
      const { graph } = siteOf(request);
      const site = await siteViewOf(app, request);
      const deployment = await app.releases.publisher.rollback({
        site,
        graph,
        deploymentId: request.params.id,
        rollbackToReleaseId: request.body.rollbackToReleaseId,
        actor: actorOf(request.principal!),
      });
      return reply.status(201).send(deployment);
    },
  );

  app.get(
    '/api/releases/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'A release with its includes and reviews',
        params: ReleaseParams,
        response: { 200: Release, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => getRelease(siteOf(request).graph, request.params.id),
  );

  app.delete(
    '/api/releases/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'Delete a draft release',
        description:
          'Only a draft can be deleted: 409 `conflict` for a pending or approved release (move it back to draft first) and for a deployed one (the record of what went live). 409 `in_use` when deployments name it (it was deployed once) or releases derive from it, naming them (`holders`; no cascade). Versions of deleted items that only this release kept are removed with it.',
        params: ReleaseParams,
        response: { 204: NoContent, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:manage' },
    },
    async (request, reply) => {
      await deleteRelease({
        graph: siteOf(request).graph,
        id: request.params.id,
        actor: actorOf(request.principal!),
      });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/releases/:id/includes',
    {
      schema: {
        tags: ['releases'],
        summary: 'Add an item version to a draft release',
        description:
          '409 when the release is not a draft; 400 when the version does not exist or its hash differs.',
        params: ReleaseParams,
        body: AddIncludeBody,
        response: { 200: Release, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:manage' },
    },
    async (request) =>
      addInclude({
        graph: siteOf(request).graph,
        id: request.params.id,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      }),
  );

  app.post(
    '/api/releases/:id/transition',
    {
      schema: {
        tags: ['releases'],
        summary: 'Move a release to another state',
        description:
          'draft→pending (reviews run), any→pending (forced re-review), pending→approved, pending→draft. Other moves are 409; `deployed` is reached by deploying.',
        params: ReleaseParams,
        body: ReleaseTransitionBody,
        response: { 200: Release, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:manage' },
    },
    async (request) => {
      const before = await getRelease(siteOf(request).graph, request.params.id);
      const release = await transitionRelease({
        graph: siteOf(request).graph,
        id: request.params.id,
        to: request.body.state,
        comment: request.body.comment,
        actor: actorOf(request.principal!),
        now: now(),
      });
      app.events.bus.emit({
        type: 'release.transitioned',
        siteId: siteOf(request).id,
        data: {
          releaseId: release.id,
          name: release.name,
          from: before.state,
          to: release.state,
          comment: request.body.comment ?? null,
          actor: actorOf(request.principal!),
        },
      });
      return release;
    },
  );

  app.post(
    '/api/releases/:id/deploy',
    {
      schema: {
        tags: ['releases'],
        summary: 'Deploy an approved release to an environment',
        description:
          'With validFrom now or past, the environment is built with the release’s pinned versions put live and switched in before the answer: `deployed` with its `buildId`, or `failed` with `error` (the previous site stays live; POST .../retry). `async: true` answers `pending` at once. A future validFrom answers `pending`; the site is built ahead and switched in at validFrom by the scheduler. 400 for env:dev (it builds heads). 409 `review_gate` on blocking findings or stale reviews (an included item got a new version since the review); 409 unless approved or deployed. `skipReviewGate` is for admins and not on environments that require approval.',
        params: ReleaseParams,
        body: DeployReleaseBody,
        response: { 201: DeploymentSchema, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:deploy' },
    },
    async (request, reply) => {
      if (request.body.skipReviewGate && !roleAtLeast(siteOf(request).role, 'admin')) {
        throw TrellisError.of('forbidden', { resource: 'review gate skip (admins only)' });
      }
      const { deployment } = await deployRelease({
        graph: siteOf(request).graph,
        releaseId: request.params.id,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      });
      emitScheduled(app, siteOf(request).id, deployment);
      return reply.status(201).send(await takeLive(app, request, deployment, request.body.async === true));
    },
  );
};

/** `deployment.scheduled` for a new deployment (due now or later; `deployment.live` follows when it goes live). */
function emitScheduled(app: FastifyInstance, siteId: string, deployment: Deployment): void {
  app.events.bus.emit({
    type: 'deployment.scheduled',
    siteId,
    data: {
      deploymentId: deployment.id,
      releaseId: deployment.releaseId,
      environmentId: deployment.environmentId,
      validFrom: deployment.validFrom,
      status: deployment.status,
      createdBy: deployment.createdBy,
      intent: deployment.intent ?? null,
    },
  });
}

/**
 * A deployment whose validFrom has come is taken live: before the answer, or in the
 * background (`background`). A future one is left to the scheduler (which builds it ahead).
 */
async function takeLive(
  app: FastifyInstance,
  request: FastifyRequest,
  deployment: Deployment,
  background: boolean,
): Promise<Deployment> {
  const { graph } = siteOf(request);
  const site = await siteViewOf(app, request);
  if (Date.parse(deployment.validFrom) > app.releases.now().getTime()) {
    app.releases.poke();
    return deployment;
  }
  const actor = actorOf(request.principal!);
  if (background) {
    app.releases.deployInBackground({ site, graph, deploymentId: deployment.id, actor });
    return deployment;
  }
  return (await app.releases.publisher.deploy({ site, graph, deploymentId: deployment.id, actor }))
    .deployment;
}
