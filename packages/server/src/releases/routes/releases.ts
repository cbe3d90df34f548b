import {
  AddIncludeBody,
  CreateReleaseBody,
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
  planDrip,
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
import { actorOf } from '../../auth/actor';
import { roleAtLeast } from '../../auth/permissions';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import {
  type DeployOutcome,
  deploymentQueue,
  deployRelease,
  listDeployments,
  replay,
  rollbackDeployment,
  scheduleDrip,
} from '../deployments';
import { getEnvironment, listEnvironments, upsertEnvironment } from '../environments';
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

/** Starts the autoBuild of deployments that went live; a failure to start is logged, not answered. */
async function afterLive(
  app: FastifyInstance,
  request: FastifyRequest,
  outcomes: DeployOutcome[],
): Promise<void> {
  for (const { deployment, environment } of outcomes) {
    if (deployment.status !== 'deployed') continue;
    try {
      await app.releases.onLive({
        siteId: siteOf(request).id,
        graph: siteOf(request).graph,
        deployment,
        environment,
      });
    } catch (error) {
      request.log.error({ err: error, deploymentId: deployment.id }, 'autoBuild could not start');
    }
  }
}

/**
 * Spec §4 Releases, environments, deployments, drip publishing, replay (site-scoped). Rules
 * live in core `release/` and `releases/`; the scheduler (releases-plugin) fires future
 * deployments. A deployment that goes live on an environment with `autoBuild` starts an
 * async build of that environment.
 */
export const releasesRoutes: FastifyPluginAsyncZod = async (app) => {
  const now = () => app.releases.now();

  app.get(
    '/api/releases/environments',
    {
      schema: {
        tags: ['releases'],
        summary: 'The site’s environments (dev and prod exist by default)',
        response: { 200: EnvironmentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => listEnvironments(siteOf(request).graph),
  );

  app.put(
    '/api/releases/environments/:id',
    {
      schema: {
        tags: ['releases'],
        summary: 'Create or replace an environment (admins)',
        description:
          'Environments are site settings: changing `requiresApproval`, `autoBuild`, `order` or the public URL needs an admin of the site (403 otherwise). Environments are never created on first use; this is the one way to add one.',
        params: EnvironmentParams,
        body: UpsertEnvironmentBody,
        response: { 200: Environment, ...errors },
      },
      config: { siteScope: 'site', permission: 'site:update' },
    },
    async (request) =>
      upsertEnvironment({
        graph: siteOf(request).graph,
        id: request.params.id,
        body: request.body,
        actor: actorOf(request.principal!),
      }),
  );

  app.get(
    '/api/releases',
    {
      schema: {
        tags: ['releases'],
        summary: 'Releases, newest first, optionally by state',
        querystring: ListReleasesQuery,
        response: { 200: ReleaseList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => listReleases(siteOf(request).graph, request.query),
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
        querystring: ListDeploymentsQuery,
        response: { 200: DeploymentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const graph = siteOf(request).graph;
      if (request.query.envId) await getEnvironment(graph, request.query.envId);
      return listDeployments(graph, request.query);
    },
  );

  app.get(
    '/api/releases/queue',
    {
      schema: {
        tags: ['releases'],
        summary: 'Future-dated pending deployments, soonest first',
        querystring: DeploymentQueueQuery,
        response: { 200: DeploymentList, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) => {
      const graph = siteOf(request).graph;
      if (request.query.envId) await getEnvironment(graph, request.query.envId);
      return deploymentQueue(graph, { ...request.query, now: now() });
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
      return replay(graph, {
        envId: request.query.envId,
        at: request.query.atTime ? new Date(request.query.atTime) : now(),
      });
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
      const { deployments, environment } = await scheduleDrip({
        graph: siteOf(request).graph,
        environmentId: request.body.environmentId,
        pairs: pairs ?? [],
        actor: actorOf(request.principal!),
        now: now(),
      });
      await afterLive(
        app,
        request,
        deployments.map((deployment) => ({ deployment, environment })),
      );
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
          'Marks the deployment superseded and creates a new, live, audit-stamped deployment of `rollbackToReleaseId` (a release that was live in the same environment). 409 unless the deployment is deployed.',
        params: DeploymentParams,
        body: RollbackDeploymentBody,
        response: { 201: DeploymentSchema, ...errors },
      },
      config: { siteScope: 'site', permission: 'release:deploy' },
    },
    async (request, reply) => {
      const outcome = await rollbackDeployment({
        graph: siteOf(request).graph,
        deploymentId: request.params.id,
        rollbackToReleaseId: request.body.rollbackToReleaseId,
        actor: actorOf(request.principal!),
        now: now(),
      });
      await afterLive(app, request, [outcome]);
      return reply.status(201).send(outcome.deployment);
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
    async (request) =>
      transitionRelease({
        graph: siteOf(request).graph,
        id: request.params.id,
        to: request.body.state,
        comment: request.body.comment,
        actor: actorOf(request.principal!),
        now: now(),
      }),
  );

  app.post(
    '/api/releases/:id/deploy',
    {
      schema: {
        tags: ['releases'],
        summary: 'Deploy an approved release to an environment',
        description:
          'Live at once when validFrom is now or past, else pending until the scheduler fires it. 409 `review_gate` on blocking findings or stale reviews (an included item got a new version since the review); 409 unless approved or deployed. `skipReviewGate` is for admins and not on environments that require approval.',
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
      const outcome = await deployRelease({
        graph: siteOf(request).graph,
        releaseId: request.params.id,
        body: request.body,
        actor: actorOf(request.principal!),
        now: now(),
      });
      await afterLive(app, request, [outcome]);
      return reply.status(201).send(outcome.deployment);
    },
  );
};
