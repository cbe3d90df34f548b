import type { z } from 'zod';
import { path } from '../http/path';
import type { CallOptions, Transport } from '../http/transport';
import {
  BlockType,
  type BlockTypeCreateInput,
  BlockTypeList,
  type BlockTypeUpdateInput,
  Locale,
  type LocaleCreateInput,
  LocaleList,
  type LocaleUpdateInput,
  PageKit,
  type PageKitCreateInput,
  PageKitList,
  type PageKitUpdateInput,
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
  Script,
  type ScriptCreateInput,
  ScriptList,
  type ScriptUpdateInput,
  Seo,
  Transform,
  type TransformCreateInput,
  TransformList,
  type TransformUpdateInput,
  Translations,
  type TranslationsUpdateInput,
  View,
  type ViewCreateInput,
  ViewList,
  type ViewSeoInput,
  type ViewUpdateInput,
  Widget,
  type WidgetCreateInput,
  WidgetList,
  type WidgetUpdateInput,
  Workflow,
  type WorkflowCreateInput,
  WorkflowItemState,
  WorkflowList,
  type WorkflowTransitionInput,
} from '../schemas';
import { createResourceApi, type ResourceApi } from './resource';

export type RouteRecord = z.output<typeof Route>;
export type ViewRecord = z.output<typeof View>;
export type SeoRecord = z.output<typeof Seo>;
export type TransformRecord = z.output<typeof Transform>;
export type SavedQueryRecord = z.output<typeof SavedQuery>;
export type QueryRun = z.output<typeof RunQueryResponse>;

/** Routes of the site: `/api/routes`, keyed by slug. */
export type RoutesApi = ResourceApi<RouteRecord, RouteCreateInput, RouteUpdateInput>;
/** Transforms (lifecycle hooks): `/api/transforms`, keyed by id. */
export type TransformsApi = ResourceApi<TransformRecord, TransformCreateInput, TransformUpdateInput>;

/** Views: `/api/views`, keyed by name, plus their SEO settings. */
export interface ViewsApi extends ResourceApi<ViewRecord, ViewCreateInput, ViewUpdateInput> {
  /** GET /api/views/{name}/seo: the view's SEO settings. */
  seo(name: string, options?: CallOptions): Promise<SeoRecord>;
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

export type ScriptRecord = z.output<typeof Script>;
export type BlockTypeRecord = z.output<typeof BlockType>;
export type WidgetRecord = z.output<typeof Widget>;
export type PageKitRecord = z.output<typeof PageKit>;
export type LocaleRecord = z.output<typeof Locale>;
export type TranslationsRecord = z.output<typeof Translations>;
export type WorkflowRecord = z.output<typeof Workflow>;
export type WorkflowState = z.output<typeof WorkflowItemState>;

/** Scripts (server-side hooks): `/api/scripts`, keyed by name. */
export type ScriptsApi = ResourceApi<ScriptRecord, ScriptCreateInput, ScriptUpdateInput>;
/** Block types: `/api/block-types`, keyed by name. */
export type BlockTypesApi = ResourceApi<BlockTypeRecord, BlockTypeCreateInput, BlockTypeUpdateInput>;
/** Widgets: `/api/widgets`, keyed by name. */
export type WidgetsApi = ResourceApi<WidgetRecord, WidgetCreateInput, WidgetUpdateInput>;
/** Page kits (reusable layout fragments): `/api/page-kits`, keyed by id; updates are PUT. */
export type PageKitsApi = ResourceApi<PageKitRecord, PageKitCreateInput, PageKitUpdateInput>;

/** Locales: `/api/locales`, keyed by code, and their translations. */
export interface LocalesApi extends ResourceApi<LocaleRecord, LocaleCreateInput, LocaleUpdateInput> {
  /** GET /api/locales/{code}/translations */
  translations(code: string, options?: CallOptions): Promise<TranslationsRecord>;
  /** PUT /api/locales/{code}/translations: merges entries (null deletes a key), or replaces them. */
  setTranslations(
    code: string,
    body: TranslationsUpdateInput,
    options?: CallOptions,
  ): Promise<TranslationsRecord>;
}

/** Workflows: definitions, and where each item is in its workflow. */
export interface WorkflowsApi {
  /** GET /api/workflows */
  list(options?: CallOptions): Promise<WorkflowRecord[]>;
  /** POST /api/workflows */
  create(body: WorkflowCreateInput, options?: CallOptions): Promise<WorkflowRecord>;
  /** GET /api/workflows/{vvId}/state: the item's state and where it may go next. */
  state(itemId: string, options?: CallOptions): Promise<WorkflowState>;
  /** POST /api/workflows/{vvId}/transition */
  transition(itemId: string, body: WorkflowTransitionInput, options?: CallOptions): Promise<WorkflowState>;
}

export function createScriptsApi(transport: Transport): ScriptsApi {
  return createResourceApi({ transport, base: 'scripts', item: Script, list: ScriptList });
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

export function createLocalesApi(transport: Transport): LocalesApi {
  return {
    ...createResourceApi<typeof Locale, typeof LocaleList, LocaleCreateInput, LocaleUpdateInput>({
      transport,
      base: 'locales',
      item: Locale,
      list: LocaleList,
    }),
    translations: (code, options = {}) =>
      transport.request({
        method: 'get',
        path: `${path('locales', code)}/translations`,
        schema: Translations,
        ...options,
      }),
    setTranslations: (code, body, options = {}) =>
      transport.request({
        method: 'put',
        path: `${path('locales', code)}/translations`,
        schema: Translations,
        json: body,
        ...options,
      }),
  };
}

export function createWorkflowsApi(transport: Transport): WorkflowsApi {
  return {
    list: (options = {}) =>
      transport.request({ method: 'get', path: 'workflows', schema: WorkflowList, ...options }),
    create: (body, options = {}) =>
      transport.request({ method: 'post', path: 'workflows', schema: Workflow, json: body, ...options }),
    state: (itemId, options = {}) =>
      transport.request({
        method: 'get',
        path: `${path('workflows', itemId)}/state`,
        schema: WorkflowItemState,
        ...options,
      }),
    transition: (itemId, body, options = {}) =>
      transport.request({
        method: 'post',
        path: `${path('workflows', itemId)}/transition`,
        schema: WorkflowItemState,
        json: body,
        ...options,
      }),
  };
}
