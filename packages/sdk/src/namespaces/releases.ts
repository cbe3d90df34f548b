import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { AnyObject, AnyObjectList } from '../schemas';

/** A JSON object whose fields the spec leaves open (releases, deployments, environments). */
export type Json = Record<string, unknown>;

/**
 * Releases, environments, deployments, drip publishing and replay (site-scoped). The spec
 * leaves most of these bodies open, so answers are checked only to be JSON objects.
 */
export function createReleasesApi(transport: Transport) {
  const get = (p: string, query: Record<string, string | number | undefined>, options: CallOptions) =>
    transport.request({ method: 'get', path: p, schema: AnyObjectList, query, ...options });
  const post = (p: string, json: unknown, options: CallOptions) =>
    transport.request({ method: 'post', path: p, schema: AnyObject, json, ...options });
  return {
    /** GET /api/releases/environments */
    environments: (options: CallOptions = {}): Promise<Json[]> => get('releases/environments', {}, options),
    /** PUT /api/releases/environments/{id}: upserts an environment. */
    putEnvironment: (
      id: string,
      body: {
        name: string;
        order?: number;
        autoBuild?: boolean;
        requiresApproval?: boolean;
        publicUrlOverride?: string;
      },
      options: CallOptions = {},
    ): Promise<Json> =>
      transport.request({
        method: 'put',
        path: path('releases', 'environments', id),
        schema: AnyObject,
        json: body,
        ...options,
      }),
    /** GET /api/releases: by `state` (`draft`, `approved`, `deployed`), `limit` default 50. */
    list: (query: { state?: string; limit?: number } = {}, options: CallOptions = {}): Promise<Json[]> =>
      get('releases', query, options),
    /** POST /api/releases: a new release in state `draft`. */
    create: (body: Json, options: CallOptions = {}): Promise<Json> => post('releases', body, options),
    /** GET /api/releases/{id}: the release with its includes. */
    get: (id: string, options: CallOptions = {}): Promise<Json> =>
      transport.request({ method: 'get', path: path('releases', id), schema: AnyObject, ...options }),
    /** POST /api/releases/{id}/includes: adds a versioned item (draft releases only). */
    addInclude: (id: string, include: Json, options: CallOptions = {}): Promise<Json> =>
      post(`${path('releases', id)}/includes`, include, options),
    /** POST /api/releases/{id}/transition: `pending` (review), `approved`, … */
    transition: (id: string, state: string, options: CallOptions = {}): Promise<Json> =>
      post(`${path('releases', id)}/transition`, { state }, options),
    /** POST /api/releases/{id}/deploy: 409 when the review gate blocks it. */
    deploy: (id: string, body: Json, options: CallOptions = {}): Promise<Json> =>
      post(`${path('releases', id)}/deploy`, body, options),
    /** GET /api/releases/deployments: recent deployments (default 50). */
    deployments: (
      query: { envId?: string; limit?: number } = {},
      options: CallOptions = {},
    ): Promise<Json[]> => get('releases/deployments', query, options),
    /** POST /api/releases/deployments/{id}/rollback: a new deployment of the older release. */
    rollbackDeployment: (id: string, rollbackToReleaseId: string, options: CallOptions = {}): Promise<Json> =>
      post(`${path('releases', 'deployments', id)}/rollback`, { rollbackToReleaseId }, options),
    /** POST /api/releases/drip-preview: the schedule a drip would use; writes nothing. */
    dripPreview: (body: Json, options: CallOptions = {}): Promise<Json> =>
      post('releases/drip-preview', body, options),
    /** POST /api/releases/drip-schedule: schedules the deployments atomically. */
    dripSchedule: (body: Json, options: CallOptions = {}): Promise<Json> =>
      post('releases/drip-schedule', body, options),
    /** GET /api/releases/queue: future-dated pending deployments, soonest first (default 100). */
    queue: (query: { envId?: string; limit?: number } = {}, options: CallOptions = {}): Promise<Json[]> =>
      get('releases/queue', query, options),
    /** GET /api/releases/replay: what was live in the environment at `atTime` (default now). */
    replay: (query: { envId: string; atTime?: string }, options: CallOptions = {}): Promise<Json> =>
      transport.request({ method: 'get', path: 'releases/replay', schema: AnyObject, query, ...options }),
  };
}
export type ReleasesApi = ReturnType<typeof createReleasesApi>;
