import {
  BlockType,
  BlockTypeList,
  type CreateBlockTypeBody,
  type CreatePageKitBody,
  type CreateRouteBody,
  type CreateScriptBody,
  type CreateTransformBody,
  type CreateViewBody,
  type CreateWidgetBody,
  PageKit,
  PageKitList,
  Route,
  RouteList,
  Script,
  ScriptList,
  ScriptRunResult,
  Seo,
  Transform,
  TransformList,
  type UpdateBlockTypeBody,
  type UpdatePageKitBody,
  type UpdateRouteBody,
  type UpdateScriptBody,
  type UpdateTransformBody,
  type UpdateViewBody,
  type UpdateWidgetBody,
  View,
  ViewList,
  type ViewSeoBody,
  Widget,
  WidgetList,
} from '@trelliscms/core';
import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import { createResourceApi, type ResourceApi } from './resource';

/** Routes of the site: `/api/routes`, keyed by slug. */
export type RoutesApi = ResourceApi<Route, z.input<typeof CreateRouteBody>, z.input<typeof UpdateRouteBody>>;
/** Transforms (lifecycle hooks): `/api/transforms`, keyed by id. */
export type TransformsApi = ResourceApi<
  Transform,
  z.input<typeof CreateTransformBody>,
  z.input<typeof UpdateTransformBody>
>;

/** Views: `/api/views`, keyed by name, plus their SEO settings. */
export interface ViewsApi
  extends ResourceApi<View, z.input<typeof CreateViewBody>, z.input<typeof UpdateViewBody>> {
  /** GET /api/views/{name}/seo: the view's SEO settings. */
  seo(name: string, options?: CallOptions): Promise<Seo>;
  /** PUT /api/views/{name}/seo: replaces the view's SEO settings. */
  setSeo(name: string, seo: z.input<typeof ViewSeoBody>, options?: CallOptions): Promise<View>;
}

export function createRoutesApi(transport: Transport): RoutesApi {
  return createResourceApi({ transport, base: 'routes', item: Route, list: RouteList });
}

export function createTransformsApi(transport: Transport): TransformsApi {
  return createResourceApi({ transport, base: 'transforms', item: Transform, list: TransformList });
}

export function createViewsApi(transport: Transport): ViewsApi {
  return {
    ...createResourceApi<
      typeof View,
      typeof ViewList,
      z.input<typeof CreateViewBody>,
      z.input<typeof UpdateViewBody>
    >({
      transport,
      base: 'views',
      item: View,
      list: ViewList,
    }),
    seo: (name, options = {}) =>
      transport.request({ method: 'get', path: `${path('views', name)}/seo`, schema: Seo, ...options }),
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

/** Scripts (server-side hooks): `/api/scripts`, keyed by name, and their dry runs. */
export interface ScriptsApi
  extends ResourceApi<Script, z.input<typeof CreateScriptBody>, z.input<typeof UpdateScriptBody>> {
  /**
   * POST /api/scripts/{name}/test: runs the saved script in the server's sandbox on `input`
   * (its `item`, `site`, `event`...), writing nothing; resolves with what it gave (`ok` and its
   * `value`, `rejected` and its `message`, or `stopped` and the limit's `reason`).
   */
  test(name: string, input?: Record<string, unknown>, options?: CallOptions): Promise<ScriptRunResult>;
}
/** Block types: `/api/block-types`, keyed by name. */
export type BlockTypesApi = ResourceApi<
  BlockType,
  z.input<typeof CreateBlockTypeBody>,
  z.input<typeof UpdateBlockTypeBody>
>;
/** Widgets: `/api/widgets`, keyed by name. */
export type WidgetsApi = ResourceApi<
  Widget,
  z.input<typeof CreateWidgetBody>,
  z.input<typeof UpdateWidgetBody>
>;
/** Page kits (reusable layout fragments): `/api/page-kits`, keyed by id; updates are PUT. */
export type PageKitsApi = ResourceApi<
  PageKit,
  z.input<typeof CreatePageKitBody>,
  z.input<typeof UpdatePageKitBody>
>;

export function createScriptsApi(transport: Transport): ScriptsApi {
  return {
    ...createResourceApi<
      typeof Script,
      typeof ScriptList,
      z.input<typeof CreateScriptBody>,
      z.input<typeof UpdateScriptBody>
    >({ transport, base: 'scripts', item: Script, list: ScriptList }),
    test: (name, input, options = {}) =>
      transport.request({
        method: 'post',
        path: `${path('scripts', name)}/test`,
        schema: ScriptRunResult,
        json: input === undefined ? {} : { input },
        ...options,
      }),
  };
}

export function createBlockTypesApi(transport: Transport): BlockTypesApi {
  return createResourceApi({ transport, base: 'block-types', item: BlockType, list: BlockTypeList });
}

export function createWidgetsApi(transport: Transport): WidgetsApi {
  return createResourceApi({ transport, base: 'widgets', item: Widget, list: WidgetList });
}

export function createPageKitsApi(transport: Transport): PageKitsApi {
  return createResourceApi({
    transport,
    base: 'page-kits',
    item: PageKit,
    list: PageKitList,
    updateMethod: 'put',
  });
}
