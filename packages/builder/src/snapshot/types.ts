import type * as core from '@trelliscms/core';

/**
 * A type of core's snapshot schema as the builder reads it: the members in `K` are required,
 * every other member may be left out (a snapshot file, or a test, may give only what a build
 * needs). Derived from core's types, never spelled again here.
 */
type ReadView<T, K extends keyof T> = Pick<T, K> & Partial<Omit<T, K>>;

export type SnapshotSite = ReadView<core.Site, 'id' | 'name'>;
export type SnapshotFieldDef = ReadView<core.FieldDefinition, 'name' | 'type'>;
export type SnapshotRelationshipDef = ReadView<core.RelationshipDefinition, 'name' | 'edgeLabel' | 'target'>;
export type SnapshotType = ReadView<Omit<core.ContentType, 'fields' | 'relationships'>, 'name'> & {
  fields: SnapshotFieldDef[];
  relationships?: SnapshotRelationshipDef[];
};
export type SnapshotItem = ReadView<core.SnapshotItem, 'id' | 'type' | 'fields'>;
export type SnapshotEdge = ReadView<core.EdgeTriple, 'from' | 'edge' | 'to'>;
export type SnapshotTemplate = ReadView<core.Template, 'name' | 'content'>;
export type SnapshotTransform = ReadView<core.Transform, 'id' | 'kind'>;
/** A saved query `{% query %}` runs (docs/queries.md). */
export type SnapshotQuery = ReadView<Omit<core.SavedQuery, 'query'>, 'name'> & {
  query: core.GraphQueryInput;
};
export type SnapshotScript = ReadView<core.Script, 'name' | 'source'>;
/** A listing/index page: a route, or a view (rendered like a listing route). */
export type SnapshotRoute = ReadView<core.Route, 'path'>;
/** A locale of the site (core `Locale`). */
export type SnapshotLocale = ReadView<core.Locale, 'code'>;
/** A locale's UI strings for the `t` filter (core `Translations`). */
export type SnapshotStrings = ReadView<core.Translations, 'locale' | 'entries'>;
/** A view: a listing page with SEO settings (rendered like a listing route). */
export type SnapshotView = SnapshotRoute & Partial<Pick<core.View, 'name' | 'seo'>>;
export type SnapshotWidget = ReadView<core.Widget, 'name' | 'area' | 'template'>;
export type SnapshotPageKit = ReadView<core.PageKit, 'id'>;

/**
 * The site snapshot: the one input of a build (`GET /api/export` serves it; `cms-build
 * --snapshot` reads it), core's `SiteSnapshot` as the builder reads it.
 */
export type Snapshot = Pick<core.SiteSnapshot, 'format' | 'version'> & {
  site: SnapshotSite;
  types: SnapshotType[];
  items: SnapshotItem[];
  edges: SnapshotEdge[];
  templates: SnapshotTemplate[];
  transforms?: SnapshotTransform[];
  scripts?: SnapshotScript[];
  routes?: SnapshotRoute[];
  views?: SnapshotView[];
  widgets?: SnapshotWidget[];
  pageKits?: SnapshotPageKit[];
  /** how the items' embeddings were made (the browser embeds queries the same way when it can) */
  embeddings?: core.SiteSnapshot['embeddings'];
  queries?: SnapshotQuery[];
  /** the site's locales: route patterns with `{locale}` emit one page per enabled locale */
  locales?: SnapshotLocale[];
  /** each locale's UI strings */
  translations?: SnapshotStrings[];
  assets?: core.SnapshotAsset[];
  exportedAt?: string;
};
