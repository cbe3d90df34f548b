import {
  BlockType,
  BlockTypeList,
  BlockTypeParams,
  CreateBlockTypeBody,
  CreatePageKitBody,
  CreateRouteBody,
  CreateSavedQueryBody,
  CreateScriptBody,
  CreateTransformBody,
  CreateViewBody,
  CreateWidgetBody,
  PageKit,
  PageKitList,
  PageKitParams,
  Route,
  RouteList,
  RouteParams,
  RouteRules,
  SavedQuery,
  SavedQueryList,
  SavedQueryParams,
  SavedQueryRules,
  Script,
  ScriptList,
  ScriptParams,
  Transform,
  TransformList,
  TransformParams,
  TransformRules,
  UpdateBlockTypeBody,
  UpdatePageKitBody,
  UpdateRouteBody,
  UpdateSavedQueryBody,
  UpdateScriptBody,
  UpdateTransformBody,
  UpdateViewBody,
  UpdateWidgetBody,
  View,
  ViewList,
  ViewParams,
  Widget,
  WidgetList,
  WidgetParams,
} from '@trelliscms/core';
import { checkSavedQuery } from './saved-queries';
import { type SiteResourceSpec, slugOf } from './site-resources';

const EVENT_ORDER = [
  'beforeSave',
  'afterSave',
  'beforePublish',
  'afterPublish',
  'beforeRender',
  'afterRender',
  'beforeBuild',
  'afterBuild',
];

/** Transforms: lifecycle hooks on items (docs/api-spec.md §4; shapes in core `schemas/transforms.ts`). */
export const TRANSFORMS: SiteResourceSpec = {
  base: 'transforms',
  label: 'Transform',
  key: 'id',
  item: Transform,
  list: TransformList,
  create: CreateTransformBody,
  update: UpdateTransformBody,
  params: TransformParams,
  rules: TransformRules,
  deriveKey: (body) => slugOf(body.name),
  sortBy: (a, b) =>
    EVENT_ORDER.indexOf(String(a.event)) - EVENT_ORDER.indexOf(String(b.event)) ||
    Number(a.order ?? 0) - Number(b.order ?? 0) ||
    String(a.id).localeCompare(String(b.id)),
  writePermission: 'templates:manage',
};

/** Routes: hand-made pages, listings and redirects. */
export const ROUTES: SiteResourceSpec = {
  base: 'routes',
  label: 'Route',
  key: 'slug',
  item: Route,
  list: RouteList,
  create: CreateRouteBody,
  update: UpdateRouteBody,
  params: RouteParams,
  rules: RouteRules,
  writePermission: 'templates:manage',
};

/** Views: listing pages with SEO settings. */
export const VIEWS: SiteResourceSpec = {
  base: 'views',
  label: 'View',
  key: 'name',
  item: View,
  list: ViewList,
  create: CreateViewBody,
  update: UpdateViewBody,
  params: ViewParams,
  writePermission: 'templates:manage',
};

/**
 * Saved queries (docs/queries.md): the JSON query language over the site graph, run by
 * `POST /api/queries/{name}/run` and `{% query %}`. Checked against the site's types when
 * written.
 */
export const QUERIES: SiteResourceSpec = {
  base: 'queries',
  label: 'SavedQuery',
  key: 'name',
  item: SavedQuery,
  list: SavedQueryList,
  create: CreateSavedQueryBody,
  update: UpdateSavedQueryBody,
  params: SavedQueryParams,
  rules: SavedQueryRules,
  check: checkSavedQuery,
  writePermission: 'templates:manage',
};

/** Scripts, block types, widgets and page kits. */
export const OTHER_RESOURCES: SiteResourceSpec[] = [
  {
    base: 'scripts',
    label: 'Script',
    key: 'name',
    item: Script,
    list: ScriptList,
    create: CreateScriptBody,
    update: UpdateScriptBody,
    params: ScriptParams,
    writePermission: 'templates:manage',
  },
  {
    base: 'block-types',
    label: 'BlockType',
    key: 'name',
    item: BlockType,
    list: BlockTypeList,
    create: CreateBlockTypeBody,
    update: UpdateBlockTypeBody,
    params: BlockTypeParams,
    writePermission: 'types:manage',
  },
  {
    base: 'widgets',
    label: 'Widget',
    key: 'name',
    item: Widget,
    list: WidgetList,
    create: CreateWidgetBody,
    update: UpdateWidgetBody,
    params: WidgetParams,
    writePermission: 'templates:manage',
  },
  {
    base: 'page-kits',
    label: 'PageKit',
    key: 'id',
    item: PageKit,
    list: PageKitList,
    create: CreatePageKitBody,
    update: UpdatePageKitBody,
    params: PageKitParams,
    deriveKey: (body) => slugOf(body.name),
    writePermission: 'templates:manage',
    updateMethods: ['put'],
  },
];
