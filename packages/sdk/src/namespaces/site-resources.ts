import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import {
  Route,
  type RouteCreateInput,
  RouteList,
  type RouteUpdateInput,
  type RunQueryInput,
  RunQueryResponse,
  SavedQuery,
  type SavedQueryCreateInput,
  SavedQueryList,
  type SavedQueryUpdateInput,
  Transform,
  type TransformCreateInput,
  TransformList,
  type TransformUpdateInput,
  View,
  type ViewCreateInput,
  ViewList,
  type ViewSeoInput,
  type ViewUpdateInput,
} from '../schemas';
import { createResourceApi, type ResourceApi } from './resource';

export type RouteRecord = z.output<typeof Route>;
export type ViewRecord = z.output<typeof View>;
export type TransformRecord = z.output<typeof Transform>;
export type SavedQueryRecord = z.output<typeof SavedQuery>;
export type QueryRun = z.output<typeof RunQueryResponse>;

/** Routes of the site: `/api/routes`, keyed by slug. */
export type RoutesApi = ResourceApi<RouteRecord, RouteCreateInput, RouteUpdateInput>;
/** Transforms (lifecycle hooks): `/api/transforms`, keyed by id. */
export type TransformsApi = ResourceApi<TransformRecord, TransformCreateInput, TransformUpdateInput>;

/** Views: `/api/views`, keyed by name, plus their SEO settings. */
export interface ViewsApi extends ResourceApi<ViewRecord, ViewCreateInput, ViewUpdateInput> {
  /** PUT /api/views/{name}/seo: replaces the view's SEO settings. */
  setSeo(name: string, seo: ViewSeoInput, options?: CallOptions): Promise<ViewRecord>;
}

/** Saved graph queries: `/api/queries`, keyed by name, and running them. */
export interface QueriesApi
  extends ResourceApi<SavedQueryRecord, SavedQueryCreateInput, SavedQueryUpdateInput> {
  /** POST /api/queries/{name}/run */
  run(name: string, body?: RunQueryInput, options?: CallOptions): Promise<QueryRun>;
}

export function createRoutesApi(transport: Transport): RoutesApi {
  return createResourceApi({ transport, base: 'routes', item: Route, list: RouteList });
}

export function createTransformsApi(transport: Transport): TransformsApi {
  return createResourceApi({ transport, base: 'transforms', item: Transform, list: TransformList });
}

export function createViewsApi(transport: Transport): ViewsApi {
  return {
    ...createResourceApi<typeof View, typeof ViewList, ViewCreateInput, ViewUpdateInput>({
      transport,
      base: 'views',
      item: View,
      list: ViewList,
    }),
    setSeo: (name, seo, options = {}) =>
      transport.request({
        method: 'put',
        path: `${path('views', name)}/seo`,
        schema: View,
        json: seo,
        ...options,
      }),
  };
}

export function createQueriesApi(transport: Transport): QueriesApi {
  return {
    ...createResourceApi<
      typeof SavedQuery,
      typeof SavedQueryList,
      SavedQueryCreateInput,
      SavedQueryUpdateInput
    >({
      transport,
      base: 'queries',
      item: SavedQuery,
      list: SavedQueryList,
    }),
    run: (name, body = {}, options = {}) =>
      transport.request({
        method: 'post',
        path: `${path('queries', name)}/run`,
        schema: RunQueryResponse,
        json: body,
        ...options,
      }),
  };
}
