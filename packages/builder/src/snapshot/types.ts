/**
 * The site snapshot: the one input of a build (`GET /api/export` serves it; `cms-build
 * --snapshot` reads it). The builder needs only the members typed here; it ignores others.
 */
export interface Snapshot {
  format: 'trellis-snapshot';
  version: 1;
  site: SnapshotSite;
  types: SnapshotType[];
  items: SnapshotItem[];
  edges: SnapshotEdge[];
  templates: SnapshotTemplate[];
  transforms?: SnapshotTransform[];
  routes?: SnapshotRoute[];
  views?: SnapshotRoute[];
  exportedAt?: string;
}

export interface SnapshotSite {
  id: string;
  name: string;
  slug?: string;
  publicUrl?: string | null;
  description?: string;
  mantra?: string;
  theme?: Record<string, unknown>;
  /** `none`, `bm25` (default), `bm25+vector` */
  searchEmission?: 'none' | 'bm25' | 'bm25+vector';
  [extra: string]: unknown;
}

export interface SnapshotFieldDef {
  name: string;
  type: string;
  [extra: string]: unknown;
}

export interface SnapshotRelationshipDef {
  name: string;
  edgeLabel: string;
  target: string;
  kind?: 'one-to-one' | 'one-to-many' | 'many-to-one' | 'many-to-many';
  required?: boolean;
}

export interface SnapshotType {
  name: string;
  label?: string;
  keyField?: string;
  fields: SnapshotFieldDef[];
  relationships?: SnapshotRelationshipDef[];
  routePattern?: string | null;
  emitPages?: boolean;
  listingOnly?: boolean;
  [extra: string]: unknown;
}

export interface SnapshotItem {
  /** `<type>:<slug>` */
  id: string;
  type: string;
  fields: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  status?: string;
  /** environments this item is published to, e.g. `['prod']` */
  publishedEnvs?: string[];
  version?: number;
  hash?: string;
  updatedAt?: string;
  /** optional embedding vector for `{% similar %}` */
  embedding?: number[] | null;
}

export interface SnapshotEdge {
  from: string;
  edge: string;
  to: string;
  props?: Record<string, unknown>;
}

export interface SnapshotTemplate {
  name: string;
  content: string;
  /** a content type name, or `''` for all types */
  boundType?: string;
  enabled?: boolean;
  version?: number;
}

/**
 * A lifecycle hook run on items before render. Kinds:
 * - `set-field`: `{field, value}` — `value` is a Liquid template rendered with `item` in scope;
 *   the result (a string) becomes `fields[field]`.
 * - `template`: `{field, template}` — renders the named site template with `item` in scope into `fields[field]`.
 */
export interface SnapshotTransform {
  id: string;
  name?: string;
  kind: 'set-field' | 'template' | 'script' | string;
  /** content type the transform applies to; null, absent or `''` for every type */
  type?: string | null;
  /** lifecycle event; a build runs `beforeRender` and `beforeBuild` transforms (and those without one) */
  event?: string;
  /** older name of `event` (`before-render`) */
  hook?: string;
  enabled?: boolean;
  field?: string;
  /** a string is Liquid rendered with `item` in scope; any other JSON value is set as it is */
  value?: unknown;
  template?: string;
  order?: number;
}

/**
 * A listing/index page (from the site's routes or views). `path` is where it is emitted;
 * with `paginate`, page n > 1 goes to `<path>page/<n>/`.
 */
export interface SnapshotRoute {
  slug?: string;
  name?: string;
  path: string;
  /** `page` (default), `listing` (with `paginate`) or `redirect` (to `redirectTo`) */
  kind?: 'page' | 'listing' | 'redirect';
  template?: string;
  /** a `page` route's item, in scope as `item` */
  contentId?: string;
  redirectTo?: string;
  status?: number;
  enabled?: boolean;
  title?: string;
  /** extra data given to the template as `route.data` */
  data?: Record<string, unknown>;
  paginate?: {
    type: string;
    size?: number;
    /** like `{% list %}`: `-date,title` */
    sort?: string;
    /** like `{% list %}`: `featured == true and category == 'news'` */
    where?: string;
  };
}
