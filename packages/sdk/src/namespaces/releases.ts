import type {
  AddIncludeBody,
  CreateReleaseBody,
  DeployReleaseBody,
  DripPreviewBody,
  DripScheduleBody,
  ReleaseTransitionBody,
  UpsertEnvironmentBody,
} from '@trelliscms/core';
import {
  Deployment,
  DeploymentList,
  DripPreviewResponse,
  DripScheduleResponse,
  Environment,
  EnvironmentList,
  LiveState,
  type LiveStateQuery,
  Release,
  ReleaseList,
  type ReplayQuery,
  ReplayResponse,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, ListPage, Transport } from '../http/transport';
import { SYNC_BUILD_TIMEOUT_MS } from './build';
import { createContentApi } from './content';
import { createReleaseHelpers } from './release-helpers';

/** The one-request calls of {@link ReleasesApi}, each one HTTP route. */
function createReleaseCalls(transport: Transport) {
  return {
    /** GET /api/releases/environments */
    environments: (options: CallOptions = {}): Promise<Environment[]> =>
      transport.request({
        method: 'get',
        path: 'releases/environments',
        schema: EnvironmentList,
        ...options,
      }),
    /** PUT /api/releases/environments/{id}: creates or replaces an environment (`env:<name>`); admins only. */
    putEnvironment: (
      id: string,
      body: z.input<typeof UpsertEnvironmentBody>,
      options: CallOptions = {},
    ): Promise<Environment> =>
      transport.request({
        method: 'put',
        path: path('releases', 'environments', id),
        schema: Environment,
        json: body,
        ...options,
      }),
    /**
     * DELETE /api/releases/environments/{id} (204; admins only). `env:dev` and `env:prod` are a
     * 409 `conflict`; an environment a pending deployment targets or items are live in is a 409
     * `in_use` naming them (`error.body.holders`).
     */
    deleteEnvironment: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('releases', 'environments', id), ...options });
    },
    /** GET /api/releases: newest first, by `state`; `limit` default 50, `offset` default 0. */
    list: (query: ReleaseListQuery = {}, options: CallOptions = {}): Promise<Release[]> =>
      transport.request({ method: 'get', path: 'releases', schema: ReleaseList, query, ...options }),
    /** GET /api/releases as one page with the count of every match (`X-Total-Count`). */
    listPage: (query: ReleaseListQuery = {}, options: CallOptions = {}): Promise<ListPage<Release>> =>
      transport.requestPage({ method: 'get', path: 'releases', schema: ReleaseList, query, ...options }),
    /** POST /api/releases: a new release in state `draft`. */
    create: (body: z.input<typeof CreateReleaseBody>, options: CallOptions = {}): Promise<Release> =>
      transport.request({ method: 'post', path: 'releases', schema: Release, json: body, ...options }),
    /** GET /api/releases/{id}: the release with its includes. */
    get: (id: string, options: CallOptions = {}): Promise<Release> =>
      transport.request({ method: 'get', path: path('releases', id), schema: Release, ...options }),
    /**
     * DELETE /api/releases/{id}: a draft release (204). Other states are a 409 `conflict`; a
     * draft that was deployed once, or that releases derive from, a 409 `in_use` naming them.
     */
    delete: async (id: string, options: CallOptions = {}): Promise<void> => {
      await transport.send({ method: 'delete', path: path('releases', id), ...options });
    },
    /** POST /api/releases/{id}/includes: adds a versioned item (draft releases only). */
    addInclude: (
      id: string,
      include: z.input<typeof AddIncludeBody>,
      options: CallOptions = {},
    ): Promise<Release> =>
      transport.request({
        method: 'post',
        path: `${path('releases', id)}/includes`,
        schema: Release,
        json: include,
        ...options,
      }),
    /** POST /api/releases/{id}/transition: e.g. `pending` (runs reviews), `approved`. */
    transition: (
      id: string,
      body: z.input<typeof ReleaseTransitionBody>,
      options: CallOptions = {},
    ): Promise<Release> =>
      transport.request({
        method: 'post',
        path: `${path('releases', id)}/transition`,
        schema: Release,
        json: body,
        ...options,
      }),
    /**
     * POST /api/releases/{id}/deploy: 409 when review findings block it or reviews are stale.
     * Due now (no `validFrom`, or a past one), the server builds the environment with the release
     * before it answers (`deployed` with its `buildId`, or `failed` with its `error`), so the call
     * waits up to 600000 ms unless `async` (answers `pending` at once; see
     * {@link ReleasesApi.waitForDeployment}). A future `validFrom` answers `pending`.
     */
    deploy: (
      id: string,
      body: z.input<typeof DeployReleaseBody>,
      options: CallOptions = {},
    ): Promise<Deployment> =>
      transport.request({
        method: 'post',
        path: `${path('releases', id)}/deploy`,
        schema: Deployment,
        json: body,
        timeoutMs: body.async === true ? undefined : SYNC_BUILD_TIMEOUT_MS,
        ...options,
      }),
    /** GET /api/releases/deployments: recent deployments, newest first (`limit` default 50, `offset`). */
    deployments: (query: DeploymentListQuery = {}, options: CallOptions = {}): Promise<Deployment[]> =>
      transport.request({
        method: 'get',
        path: 'releases/deployments',
        schema: DeploymentList,
        query,
        ...options,
      }),
    /** GET /api/releases/deployments as one page with the count of every match. */
    deploymentsPage: (
      query: DeploymentListQuery = {},
      options: CallOptions = {},
    ): Promise<ListPage<Deployment>> =>
      transport.requestPage({
        method: 'get',
        path: 'releases/deployments',
        schema: DeploymentList,
        query,
        ...options,
      }),
    /** GET /api/releases/deployments/{id}: one deployment, e.g. to follow a `pending` one. */
    getDeployment: (id: string, options: CallOptions = {}): Promise<Deployment> =>
      transport.request({
        method: 'get',
        path: path('releases', 'deployments', id),
        schema: Deployment,
        ...options,
      }),
    /**
     * POST /api/releases/deployments/{id}/retry: tries a `failed` deployment again (it builds,
     * so the call waits up to 600000 ms like a synchronous deploy).
     */
    retryDeployment: (id: string, options: CallOptions = {}): Promise<Deployment> =>
      transport.request({
        method: 'post',
        path: `${path('releases', 'deployments', id)}/retry`,
        schema: Deployment,
        json: {},
        timeoutMs: SYNC_BUILD_TIMEOUT_MS,
        ...options,
      }),
    /**
     * POST /api/releases/deployments/{id}/rollback: a new, live deployment of the older release
     * (which must have been live in the same environment); the rolled-back one is `superseded`.
     */
    rollbackDeployment: (
      id: string,
      rollbackToReleaseId: string,
      options: CallOptions = {},
    ): Promise<Deployment> =>
      transport.request({
        method: 'post',
        path: `${path('releases', 'deployments', id)}/rollback`,
        schema: Deployment,
        json: { rollbackToReleaseId },
        ...options,
      }),
    /** POST /api/releases/drip-preview: the timestamps a drip would use; writes nothing. */
    dripPreview: (
      body: z.input<typeof DripPreviewBody>,
      options: CallOptions = {},
    ): Promise<DripPreviewResponse> =>
      transport.request({
        method: 'post',
        path: 'releases/drip-preview',
        schema: DripPreviewResponse,
        json: body,
        ...options,
      }),
    /** POST /api/releases/drip-schedule: schedules one deployment per release, atomically. */
    dripSchedule: (
      body: z.input<typeof DripScheduleBody>,
      options: CallOptions = {},
    ): Promise<DripScheduleResponse> =>
      transport.request({
        method: 'post',
        path: 'releases/drip-schedule',
        schema: DripScheduleResponse,
        json: body,
        ...options,
      }),
    /** GET /api/releases/queue: future-dated pending deployments, soonest first (`limit` default 100, `offset`). */
    queue: (query: DeploymentListQuery = {}, options: CallOptions = {}): Promise<Deployment[]> =>
      transport.request({ method: 'get', path: 'releases/queue', schema: DeploymentList, query, ...options }),
    /** GET /api/releases/queue as one page with the count of every scheduled deployment. */
    queuePage: (query: DeploymentListQuery = {}, options: CallOptions = {}): Promise<ListPage<Deployment>> =>
      transport.requestPage({
        method: 'get',
        path: 'releases/queue',
        schema: DeploymentList,
        query,
        ...options,
      }),
    /**
     * GET /api/releases/replay: what was live in the environment at `atTime` (default now); a
     * future `atTime` counts the pending deployments due by then (`future: true`).
     */
    replay: (query: z.input<typeof ReplayQuery>, options: CallOptions = {}): Promise<ReplayResponse> =>
      transport.request({
        method: 'get',
        path: 'releases/replay',
        schema: ReplayResponse,
        query,
        ...options,
      }),
    /** GET /api/releases/live: every item live in the environment now (or at `atTime`), at its version. */
    live: (query: z.input<typeof LiveStateQuery>, options: CallOptions = {}): Promise<LiveState> =>
      transport.request({ method: 'get', path: 'releases/live', schema: LiveState, query, ...options }),
  };
}
export type ReleaseCalls = ReturnType<typeof createReleaseCalls>;

/** The query of GET /api/releases: `state`, `limit` (default 50, at most 500), `offset`. */
export type ReleaseListQuery = {
  state?: z.input<typeof ReleaseTransitionBody>['state'];
  limit?: number;
  offset?: number;
};

/** The query of the deployment lists: `envId`, `limit`, `offset`. */
export type DeploymentListQuery = {
  envId?: string;
  limit?: number;
  offset?: number;
};

/**
 * Releases, environments, deployments, drip publishing, replay and live state (site-scoped):
 * one method per route, and the helpers of ./release-helpers.ts that chain them.
 */
export function createReleasesApi(transport: Transport) {
  const calls = createReleaseCalls(transport);
  return { ...calls, ...createReleaseHelpers(calls, createContentApi(transport)) };
}
export type ReleasesApi = ReturnType<typeof createReleasesApi>;
