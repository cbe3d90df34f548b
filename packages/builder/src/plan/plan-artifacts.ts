import {
  fillLocale,
  hasLocalePlaceholder,
  normalizeRoute,
  parentRelationship,
  resolveRoute,
} from '@trelliscms/core/build';
import type {
  Snapshot,
  SnapshotItem,
  SnapshotRoute,
  SnapshotTemplate,
  SnapshotType,
} from '../snapshot/types';
import type { ListQuery, WhereCondition } from '../source/content-source';
import { valueGroups } from '../source/distinct-values';
import { itemHash } from '../source/item-hash';
import type { SnapshotSource } from '../source/snapshot-source';
import { isVisibleIn } from '../source/snapshot-source';
import { parseSort, parseWhere } from '../source/where';
import type { ListIndex } from './list-index';
import {
  type Alternate,
  localizedItemKey,
  localizedUrlKey,
  type SiteLocales,
  siteLocalesOf,
} from './site-locales';

/**
 * Resolved item paths kept between builds, by item id: reused while the routePattern, the
 * item's content hash and its parent's are unchanged (a path depends on nothing else).
 */
export type RouteMemo = Map<
  string,
  {
    pattern: string | null;
    hash: string;
    parentId: string | null;
    parentHash: string;
    path: string;
    missing: string[];
  }
>;

/** One page the build renders. */
export type ArtifactSpec =
  | {
      kind: 'item';
      key: string;
      /** output file relative to the site root */
      file: string;
      path: string;
      itemId: string;
      template: string;
      /** true in an environment the item is not published to: a fixed "not published" page */
      stub: boolean;
      /** the page's locale, for a type whose routePattern has `{locale}` */
      locale?: string;
      /** the same page in every locale (this one included), for `hreflang` links */
      alternates?: Alternate[];
    }
  | {
      kind: 'route';
      key: string;
      file: string;
      path: string;
      route: SnapshotRoute;
      template: string;
      /** 1-based page number and page count (1 and 1 without pagination) */
      page: number;
      pages: number;
      /** the page's locale, for a route whose path has `{locale}` */
      locale?: string;
      /** the same page in every locale (this one included), for `hreflang` links */
      alternates?: Alternate[];
      /** a listing paginated by a field (`paginate.field`): the value this page set lists, and its condition */
      term?: { field: string; op: WhereCondition['op']; value: string | number | boolean; slug: string };
    };

/** An error or warning found while planning or rendering. */
export interface BuildIssue {
  /** `route_collision`, `template_missing`, `route_placeholder_missing`, `render_failed`, ... */
  code: string;
  message: string;
  /** the artifact concerned, when there is one */
  key?: string;
  path?: string;
  template?: string;
  /** the line of the template, when known */
  line?: number;
  /** the variable concerned (`undefined_variable`) */
  variable?: string;
}

export interface BuildPlan {
  artifacts: ArtifactSpec[];
  /**
   * item id → page path, for items with a (non-stub) page (for a localized type, the default
   * locale's page); `<id>@<locale>` → the path of its page in that locale
   */
  urls: Map<string, string>;
  errors: BuildIssue[];
  warnings: BuildIssue[];
  /** ids of the items some item's route may read as its parent */
  parents: Set<string>;
}

/**
 * `/a/b/` → `a/b/index.html`; `/` → `index.html`; a file path (`/feed.xml`, `/404.html`, see
 * {@link routePathOf}) → that file; a feed planned with a folder path (`/feed.xml/`, see
 * {@link FEED_PATH}) → `feed.xml`.
 */
export function fileOf(path: string): string {
  if (!path.endsWith('/')) return path.slice(1);
  if (FEED_PATH.test(path)) return path.slice(1, -1);
  return path === '/' ? 'index.html' : `${path.slice(1)}index.html`;
}

/** A path whose last segment ends in a feed extension (`/feed.xml`, `/blog/atom.xml`): a feed, written as that file. */
export const FEED_PATH = /\.(xml|rss|atom|json)\/?$/i;

/**
 * A route's path as the build writes it: a folder (`/blog` → `/blog/`, written as
 * `blog/index.html`), or, when its last segment has a file extension and no trailing slash
 * (`/feed.xml`, `/404.html`), that file: a feed, a 404 page, a `robots.txt`. A file route has one
 * page and is left out of the sitemap.
 */
export function routePathOf(path: string): string {
  const normalized = normalizeRoute(path);
  return /\/[^/]*[^/.]\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(path.trim()) ? normalized.slice(0, -1) : normalized;
}

/** Whether a type gets one page per item: `emitPages` when set, else not `listingOnly`. */
export function emitsPages(type: SnapshotType): boolean {
  if (typeof type.emitPages === 'boolean') return type.emitPages;
  return type.listingOnly !== true;
}

/** Templates that are never page templates: partials and layouts by naming convention. */
export function isPartialName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('partials/') || name.startsWith('layouts/');
}

/**
 * The page template of a type: an enabled template bound to the type (the one named like the
 * type first, else the first by name), else an enabled wildcard template (`boundType: ''`,
 * not a partial; `default` or `item` first, else the first by name).
 */
export function pageTemplateFor(type: string, templates: readonly SnapshotTemplate[]): string | null {
  const enabled = templates.filter((t) => t.enabled !== false && !isPartialName(t.name));
  const byName = (a: SnapshotTemplate, b: SnapshotTemplate) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  const bound = enabled.filter((t) => t.boundType === type).sort(byName);
  if (bound.length > 0) return (bound.find((t) => t.name === type) ?? bound[0]!).name;
  const wildcard = enabled.filter((t) => (t.boundType ?? '') === '').sort(byName);
  if (wildcard.length === 0) return null;
  return (
    wildcard.find((t) => t.name === 'default') ??
    wildcard.find((t) => t.name === 'item') ??
    wildcard[0]!
  ).name;
}

function parentIdOf(item: SnapshotItem, type: SnapshotType, outEdges: Map<string, string[]>): string | null {
  const rel = parentRelationship(type.relationships);
  if (!rel) return null;
  const viaEdge = outEdges.get(`${item.id}\n${rel.edgeLabel}`)?.[0];
  if (viaEdge) return viaEdge;
  const value = item.relationships?.[rel.name];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first === 'string') return first;
  if (typeof first === 'object' && first !== null && typeof (first as { id?: unknown }).id === 'string') {
    return (first as { id: string }).id;
  }
  return null;
}

/**
 * Plans every artifact of a build: listing/index routes (paginated), then one page per item of
 * each type that emits pages, at its routePattern or `/<type>/<slug>/`. In an environment other
 * than `dev`, an item not published there gets a stub page. Two artifacts at one path are a
 * `route_collision` error: the first keeps the path, the second is not emitted.
 */
export function planArtifacts(params: {
  snapshot: Snapshot;
  source: SnapshotSource;
  env: string;
  /** answers listing queries (pagination totals); default: the source */
  lists?: ListIndex | null;
  /** paths of the previous builds; only for snapshots whose item hashes cover every field (no transforms) */
  routes?: RouteMemo | null;
}): BuildPlan {
  const { snapshot, source, env } = params;
  const lists = params.lists ?? null;
  const memo = params.routes ?? null;
  const errors: BuildIssue[] = [];
  const warnings: BuildIssue[] = [];
  const artifacts: ArtifactSpec[] = [];
  const urls = new Map<string, string>();
  const taken = new Map<string, string>();
  const templateNames = new Set(snapshot.templates.filter((t) => t.enabled !== false).map((t) => t.name));

  const claim = (path: string, key: string): boolean => {
    const holder = taken.get(path);
    if (holder !== undefined) {
      errors.push({
        code: 'route_collision',
        message: `${key} and ${holder} both resolve to ${path}; ${key} was not emitted`,
        key,
        path,
      });
      return false;
    }
    taken.set(path, key);
    return true;
  };

  const locales = siteLocalesOf(snapshot);
  // a route or view whose path has `{locale}` is one route per locale
  const expanded: Array<{ route: SnapshotRoute; locale?: string; alternates?: Alternate[] }> = [];
  for (const route of [...(snapshot.routes ?? []), ...(snapshot.views ?? [])]) {
    if (!locales.isLocalized || !hasLocalePlaceholder(route.path)) {
      expanded.push({ route });
      continue;
    }
    const alternates = locales.codes.map((code) => ({
      locale: code,
      path: normalizeRoute(fillLocale(route.path as string, code)),
    }));
    for (const code of locales.codes) {
      const redirectTo =
        typeof route.redirectTo === 'string' ? fillLocale(route.redirectTo, code) : route.redirectTo;
      expanded.push({
        route: { ...route, path: fillLocale(route.path as string, code), redirectTo },
        locale: code,
        alternates,
      });
    }
  }
  for (const { route, locale, alternates } of expanded) {
    const localized = locale === undefined ? {} : { locale, alternates };
    if (route.enabled === false || typeof route.path !== 'string') continue;
    if (route.kind === 'redirect') {
      const path = routePathOf(route.path);
      const key = `route:${path}#1`;
      if (typeof route.redirectTo !== 'string' || route.redirectTo === '') {
        errors.push({
          code: 'route_invalid',
          message: `redirect route ${route.path} has no redirectTo`,
          path,
        });
      } else if (claim(path, key)) {
        artifacts.push({
          kind: 'route',
          key,
          file: fileOf(path),
          path,
          route,
          template: '',
          page: 1,
          pages: 1,
          ...localized,
        });
      }
      continue;
    }
    if (typeof route.template !== 'string' || !templateNames.has(route.template)) {
      errors.push({
        code: 'template_missing',
        message: `route ${route.path} names template "${route.template}", which does not exist or is disabled`,
        path: route.path,
        template: route.template,
      });
      continue;
    }
    const base = routePathOf(route.path);
    if (route.paginate?.field) {
      if (!base.includes('{value}')) {
        errors.push({
          code: 'route_invalid',
          message: `route ${route.path} paginates by the field "${route.paginate.field}" but its path has no {value}`,
          path: base,
        });
        continue;
      }
      for (const spec of termArtifacts({ route, base, source, lists })) {
        if (claim(spec.path, spec.key)) artifacts.push(spec);
      }
      continue;
    }
    let pages = 1;
    if (route.paginate && base.endsWith('/')) {
      const size = Math.max(1, Math.trunc(route.paginate.size ?? 10));
      const query = {
        type: route.paginate.type,
        where: route.paginate.where ? parseWhere(route.paginate.where) : [],
        sort: parseSort(route.paginate.sort),
      };
      // the whole list (not a count of it): the route's pages list it, and the render workers
      // take the lists sorted here (SnapshotSource.sharedLists) instead of each sorting it again
      const total = lists ? lists.sortedIds(query).length : source.list(query).total;
      pages = Math.max(1, Math.ceil(total / size));
    }
    for (let page = 1; page <= pages; page++) {
      const path = page === 1 ? base : `${base}page/${page}/`;
      const key = `route:${base}#${page}`;
      if (!claim(path, key)) continue;
      artifacts.push({
        kind: 'route',
        key,
        file: fileOf(path),
        path,
        route,
        template: route.template!,
        page,
        pages,
        ...(locale === undefined
          ? {}
          : {
              locale,
              alternates: alternates?.map((alt) => ({
                locale: alt.locale,
                path: page === 1 ? alt.path : `${alt.path}page/${page}/`,
              })),
            }),
      });
    }
  }

  const all = new Map(snapshot.items.map((item) => [item.id, item]));
  // only edges that name a parent matter here
  const outEdges = parentEdges(snapshot);
  const parents = new Set<string>();
  const sorted = [...snapshot.items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const types = new Map(snapshot.types.map((type) => [type.name, type]));
  const templateOf = new Map<string, string | null>();
  for (const item of sorted) {
    const type = types.get(item.type);
    if (!type || !emitsPages(type)) continue;
    if (!templateOf.has(type.name)) {
      const template = pageTemplateFor(type.name, snapshot.templates);
      templateOf.set(type.name, template);
      if (!template) {
        warnings.push({
          code: 'template_missing',
          message: `type "${type.name}" emits pages but has no enabled template bound to it or to all types; its items get no pages`,
        });
      }
    }
    const template = templateOf.get(type.name);
    if (!template) continue;
    const parentId = parentIdOf(item, type, outEdges);
    if (parentId) parents.add(parentId);
    const parent = parentId ? (all.get(parentId) ?? null) : null;
    if (locales.isLocalized && hasLocalePlaceholder(type.routePattern)) {
      planLocalizedItem({ locales, item, type, parent, template, env, claim, artifacts, urls, warnings });
      continue;
    }
    const resolved = resolveItemRoute(item, type, parentId, parent, memo);
    let path = resolved.path;
    if (resolved.missing.length > 0) {
      path = resolveRoute({ pattern: null, item }).path;
      warnings.push({
        code: 'route_placeholder_missing',
        message: `${item.id}: routePattern "${type.routePattern}" has no value for {${resolved.missing.join('}, {')}}; using ${path}`,
        key: `item:${item.id}`,
        path,
      });
    }
    const key = `item:${item.id}`;
    if (!claim(path, key)) continue;
    const stub = !isVisibleIn(item, env);
    if (!stub) urls.set(item.id, path);
    artifacts.push({ kind: 'item', key, file: fileOf(path), path, itemId: item.id, template, stub });
  }
  return { artifacts, urls, errors, warnings, parents };
}

/**
 * The pages of an item of a type whose routePattern has `{locale}`: one per published locale,
 * each at the pattern filled with the locale's code and the item's fields in that locale (a
 * translated slug gives a translated path), keyed `item:<id>@<code>`.
 */
function planLocalizedItem(params: {
  locales: SiteLocales;
  item: SnapshotItem;
  type: SnapshotType;
  parent: SnapshotItem | null;
  template: string;
  env: string;
  claim: (path: string, key: string) => boolean;
  artifacts: ArtifactSpec[];
  urls: Map<string, string>;
  warnings: BuildIssue[];
}): void {
  const { locales, item, type, parent, template, env, claim, artifacts, urls, warnings } = params;
  const pattern = type.routePattern as string;
  const stub = !isVisibleIn(item, env);
  const pages: Array<{ code: string; key: string; path: string }> = [];
  for (const code of locales.codes) {
    const localized = locales.localize(item, code);
    const localParent = parent ? locales.localize(parent, code) : null;
    const resolved = resolveRoute({
      pattern: fillLocale(pattern, code),
      item: localized,
      parent: localParent,
    });
    let path = resolved.path;
    const key = localizedItemKey(item.id, code);
    if (resolved.missing.length > 0) {
      path = normalizeRoute(`/${code}${resolveRoute({ pattern: null, item }).path}`);
      warnings.push({
        code: 'route_placeholder_missing',
        message: `${item.id} (${code}): routePattern "${pattern}" has no value for {${resolved.missing.join('}, {')}}; using ${path}`,
        key,
        path,
      });
    }
    if (claim(path, key)) pages.push({ code, key, path });
  }
  const alternates = stub ? undefined : pages.map((page) => ({ locale: page.code, path: page.path }));
  for (const page of pages) {
    if (!stub) {
      urls.set(localizedUrlKey(item.id, page.code), page.path);
      if (page.code === locales.defaultCode) urls.set(item.id, page.path);
    }
    artifacts.push({
      kind: 'item',
      key: page.key,
      file: fileOf(page.path),
      path: page.path,
      itemId: item.id,
      template,
      stub,
      locale: page.code,
      ...(alternates ? { alternates } : {}),
    });
  }
}

/** The list query of a paginated route (with a field's value, for one value's page set). */
export function paginateQuery(
  paginate: NonNullable<SnapshotRoute['paginate']>,
  term?: { field: string; op: WhereCondition['op']; value: unknown },
): ListQuery {
  const where = paginate.where ? parseWhere(paginate.where) : [];
  if (term) where.push({ field: term.field, op: term.op, value: term.value });
  return { type: paginate.type, where, sort: parseSort(paginate.sort) };
}

/**
 * The pages of a listing paginated by a field: for each distinct value of `paginate.field`
 * among the items `paginate` selects, `size` items per page at the route's path with `{value}`
 * replaced by the value's slug (page n > 1 at `<path>page/<n>/`).
 */
function termArtifacts(params: {
  route: SnapshotRoute;
  base: string;
  source: SnapshotSource;
  lists: ListIndex | null;
}): Array<Extract<ArtifactSpec, { kind: 'route' }>> {
  const { route, base, source, lists } = params;
  const paginate = route.paginate!;
  const field = paginate.field!;
  const size = Math.max(1, Math.trunc(paginate.size ?? 10));
  const all = paginateQuery(paginate);
  const items = lists
    ? lists.sortedIds(all).map((id) => source.item(id)!)
    : source.list({ ...all, limit: undefined }).items;
  const { groups, op } = valueGroups(items, field);
  const specs: Array<Extract<ArtifactSpec, { kind: 'route' }>> = [];
  for (const group of groups) {
    const term = { field, op, value: group.value, slug: group.slug };
    const query = paginateQuery(paginate, term);
    const total = lists ? lists.sortedIds(query).length : source.list(query).total;
    const pages = Math.max(1, Math.ceil(total / size));
    const first = base.replaceAll('{value}', group.slug);
    for (let page = 1; page <= pages; page++) {
      const path = page === 1 ? first : `${first}page/${page}/`;
      specs.push({
        kind: 'route',
        key: `route:${first}#${page}`,
        file: fileOf(path),
        path,
        route,
        template: route.template!,
        page,
        pages,
        term,
      });
    }
  }
  return specs;
}

/** An item's route (`resolveRoute`), through the memo of earlier builds when there is one. */
function resolveItemRoute(
  item: SnapshotItem,
  type: SnapshotType,
  parentId: string | null,
  parent: SnapshotItem | null,
  memo: RouteMemo | null,
): { path: string; missing: string[] } {
  if (!memo) return resolveRoute({ pattern: type.routePattern, item, parent });
  const pattern = type.routePattern ?? null;
  const hash = itemHash(item);
  const parentHash = parent ? itemHash(parent) : '';
  const known = memo.get(item.id);
  if (
    known &&
    known.hash === hash &&
    known.pattern === pattern &&
    known.parentId === parentId &&
    known.parentHash === parentHash
  ) {
    return known;
  }
  const resolved = resolveRoute({ pattern, item, parent });
  memo.set(item.id, { pattern, hash, parentId, parentHash, path: resolved.path, missing: resolved.missing });
  return resolved;
}

/** What decides a plan besides items, routes, types and edges: which templates exist, are enabled and bound where. */
export function templatesKey(templates: readonly SnapshotTemplate[]): string {
  return JSON.stringify(templates.map((t) => [t.name, t.boundType ?? '', t.enabled !== false]));
}

/**
 * The previous build's plan, when it is this build's plan too: `planArtifacts` would give the
 * same artifacts, URLs, errors and warnings. That holds when the site settings, types, routes
 * and views (the caller compares their hash), the templates' names, bindings and enablement
 * (`templatesKey`), the edges and the set of items are those of the previous build, every item
 * is visible (no stub pages), and the items whose content changed (`changed`) keep their page
 * and path, are nobody's parent and have no route warning, and no paginated listing changed its
 * page count. The caller makes sure every item of the snapshot is visible in `source`. Null
 * otherwise (plan again).
 */
export function replan(params: {
  previous: BuildPlan;
  snapshot: Snapshot;
  source: SnapshotSource;
  lists: ListIndex;
  routes: RouteMemo | null;
  /** ids of the items whose content changed since the previous plan */
  changed: ReadonlySet<string>;
  /** types of those items, before and after */
  changedTypes: ReadonlySet<string>;
}): BuildPlan | null {
  const { previous, snapshot, source, lists, changed, changedTypes } = params;
  if (changed.size === 0) return previous;
  if (changed.size > 64) return null;
  const types = new Map(snapshot.types.map((type) => [type.name, type]));
  const specOf = (key: string) => {
    let keyed = specsByKey.get(previous);
    if (!keyed) {
      keyed = new Map(previous.artifacts.map((spec) => [spec.key, spec]));
      specsByKey.set(previous, keyed);
    }
    return keyed.get(key);
  };
  let outEdges: Map<string, string[]> | null = null;
  for (const id of changed) {
    if (previous.parents.has(id)) return null;
    const item = source.item(id);
    if (!item) return null;
    const type = types.get(item.type);
    if (!type || !emitsPages(type)) {
      if (specOf(`item:${id}`)) return null;
      continue;
    }
    const spec = specOf(`item:${id}`);
    if (spec?.kind !== 'item' || spec.stub) return null;
    if (previous.warnings.some((warning) => warning.key === spec.key)) return null;
    let parentId: string | null = null;
    if (parentRelationship(type.relationships)) {
      outEdges ??= parentEdges(snapshot);
      parentId = parentIdOf(item, type, outEdges);
    }
    // a parent that was nobody's parent before would be missing from `parents`
    if (parentId !== null && !previous.parents.has(parentId)) return null;
    const parent = parentId === null ? null : source.item(parentId);
    const resolved = resolveItemRoute(item, type, parentId, parent, params.routes);
    if (resolved.missing.length > 0 || resolved.path !== spec.path) return null;
  }
  for (const route of [...(snapshot.routes ?? []), ...(snapshot.views ?? [])]) {
    if (route.enabled === false || typeof route.path !== 'string' || route.kind === 'redirect') continue;
    if (!route.paginate || !changedTypes.has(route.paginate.type)) continue;
    // the values of a field, and their page counts, may have changed: plan again
    if (route.paginate.field) return null;
    const spec = specOf(`route:${routePathOf(route.path)}#1`);
    if (spec?.kind !== 'route') return null;
    if (!spec.path.endsWith('/')) continue;
    const size = Math.max(1, Math.trunc(route.paginate.size ?? 10));
    const total = lists.sortedIds({
      type: route.paginate.type,
      where: route.paginate.where ? parseWhere(route.paginate.where) : [],
      sort: parseSort(route.paginate.sort),
      limit: 0,
    }).length;
    if (Math.max(1, Math.ceil(total / size)) !== spec.pages) return null;
  }
  return previous;
}

// The artifacts of plans that `replan` looked into, by key (a plan is kept while it is reused).
const specsByKey = new WeakMap<BuildPlan, Map<string, ArtifactSpec>>();

/** Targets of the edges that may name a parent, by `<from>\n<edge label>`. */
function parentEdges(snapshot: Snapshot): Map<string, string[]> {
  const outEdges = new Map<string, string[]>();
  const parentLabels = new Set<string>();
  for (const type of snapshot.types) {
    const rel = parentRelationship(type.relationships);
    if (rel) parentLabels.add(rel.edgeLabel);
  }
  for (const edge of snapshot.edges ?? []) {
    if (!parentLabels.has(edge.edge)) continue;
    const key = `${edge.from}\n${edge.edge}`;
    const list = outEdges.get(key);
    if (list) list.push(edge.to);
    else outEdges.set(key, [edge.to]);
  }
  return outEdges;
}
