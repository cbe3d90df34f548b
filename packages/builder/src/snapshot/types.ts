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
/** A listing/index page: a route, or a view (rendered like a listing route). */
export type SnapshotRoute = ReadView<core.Route, 'path'>;

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
  routes?: SnapshotRoute[];
  views?: SnapshotRoute[];
  assets?: core.SnapshotAsset[];
  exportedAt?: string;
};
