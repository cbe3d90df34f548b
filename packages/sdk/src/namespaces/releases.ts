import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import type {
  AddIncludeInput,
  DeployReleaseInput,
  DripPreviewInput,
  DripScheduleInput,
  ReleaseCreateInput,
  ReleaseTransitionInput,
  UpsertEnvironmentInput,
} from '../schemas';
import {
  Deployment,
  DeploymentList,
  DripPreviewResponse,
  DripScheduleResponse,
  Environment,
  EnvironmentList,
  Release,
  ReleaseList,
  ReplayResponse,
} from '../schemas';

export type EnvironmentRecord = z.output<typeof Environment>;
export type ReleaseRecord = z.output<typeof Release>;
export type DeploymentRecord = z.output<typeof Deployment>;
export type DripPreview = z.output<typeof DripPreviewResponse>;
export type DripScheduled = z.output<typeof DripScheduleResponse>;
export type Replay = z.output<typeof ReplayResponse>;

/** Releases, environments, deployments, drip publishing and replay (site-scoped). */
export function createReleasesApi(transport: Transport) {
  return {
    /** GET /api/releases/environments */
    environments: (options: CallOptions = {}): Promise<EnvironmentRecord[]> =>
      transport.request({
        method: 'get',
        path: 'releases/environments',
        schema: EnvironmentList,
        ...options,
      }),
    /** PUT /api/releases/environments/{id}: creates or replaces an environment (`env:<name>`). */
    putEnvironment: (
      id: string,
      body: UpsertEnvironmentInput,
      options: CallOptions = {},
    ): Promise<EnvironmentRecord> =>
      transport.request({
        method: 'put',
        path: path('releases', 'environments', id),
        schema: Environment,
        json: body,
        ...options,
      }),
    /** GET /api/releases: by `state`; `limit` default 50. */
    list: (
      query: { state?: ReleaseTransitionInput['state']; limit?: number } = {},
      options: CallOptions = {},
    ): Promise<ReleaseRecord[]> =>
      transport.request({ method: 'get', path: 'releases', schema: ReleaseList, query, ...options }),
    /** POST /api/releases: a new release in state `draft`. */
    create: (body: ReleaseCreateInput, options: CallOptions = {}): Promise<ReleaseRecord> =>
      transport.request({ method: 'post', path: 'releases', schema: Release, json: body, ...options }),
    /** GET /api/releases/{id}: the release with its includes. */
    get: (id: string, options: CallOptions = {}): Promise<ReleaseRecord> =>
      transport.request({ method: 'get', path: path('releases', id), schema: Release, ...options }),
    /** POST /api/releases/{id}/includes: adds a versioned item (draft releases only). */
    addInclude: (id: string, include: AddIncludeInput, options: CallOptions = {}): Promise<ReleaseRecord> =>
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
      body: ReleaseTransitionInput,
      options: CallOptions = {},
    ): Promise<ReleaseRecord> =>
      transport.request({
        method: 'post',
        path: `${path('releases', id)}/transition`,
        schema: Release,
        json: body,
        ...options,
      }),
    /** POST /api/releases/{id}/deploy: 409 when review findings block it or reviews are stale. */
    deploy: (id: string, body: DeployReleaseInput, options: CallOptions = {}): Promise<DeploymentRecord> =>
      transport.request({
        method: 'post',
        path: `${path('releases', id)}/deploy`,
        schema: Deployment,
        json: body,
        ...options,
      }),
    /** GET /api/releases/deployments: recent deployments (default 50). */
    deployments: (
      query: { envId?: string; limit?: number } = {},
      options: CallOptions = {},
    ): Promise<DeploymentRecord[]> =>
      transport.request({
        method: 'get',
        path: 'releases/deployments',
        schema: DeploymentList,
        query,
        ...options,
      }),
    /** POST /api/releases/deployments/{id}/rollback: a new deployment of the older release. */
    rollbackDeployment: (
      id: string,
      rollbackToReleaseId: string,
      options: CallOptions = {},
    ): Promise<DeploymentRecord> =>
      transport.request({
        method: 'post',
        path: `${path('releases', 'deployments', id)}/rollback`,
        schema: Deployment,
        json: { rollbackToReleaseId },
        ...options,
      }),
    /** POST /api/releases/drip-preview: the timestamps a drip would use; writes nothing. */
    dripPreview: (body: DripPreviewInput, options: CallOptions = {}): Promise<DripPreview> =>
      transport.request({
        method: 'post',
        path: 'releases/drip-preview',
        schema: DripPreviewResponse,
        json: body,
        ...options,
      }),
    /** POST /api/releases/drip-schedule: schedules one deployment per release, atomically. */
    dripSchedule: (body: DripScheduleInput, options: CallOptions = {}): Promise<DripScheduled> =>
      transport.request({
        method: 'post',
        path: 'releases/drip-schedule',
        schema: DripScheduleResponse,
        json: body,
        ...options,
      }),
    /** GET /api/releases/queue: future-dated pending deployments, soonest first (default 100). */
    queue: (
      query: { envId?: string; limit?: number } = {},
      options: CallOptions = {},
    ): Promise<DeploymentRecord[]> =>
      transport.request({ method: 'get', path: 'releases/queue', schema: DeploymentList, query, ...options }),
    /** GET /api/releases/replay: what was live in the environment at `atTime` (default now). */
    replay: (query: { envId: string; atTime?: string }, options: CallOptions = {}): Promise<Replay> =>
      transport.request({
        method: 'get',
        path: 'releases/replay',
        schema: ReplayResponse,
        query,
        ...options,
      }),
  };
}
export type ReleasesApi = ReturnType<typeof createReleasesApi>;
