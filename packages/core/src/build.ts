/**
 * `@trelliscms/core/build`: the pure helpers a build's render workers need, without the zod
 * schemas (a worker starts without loading them). Everything here is also exported from
 * `@trelliscms/core`.
 */

export {
  bindQueryParams,
  type GraphQueryReader,
  type QueryItem,
  type QueryResult,
  type QueryTypeInfo,
  queryRow,
  runGraphQuerySync,
} from './content/graph-query';
export {
  bindParams,
  compareValues,
  conditionHolds,
  instantOf,
  parseSort,
  parseWhere,
  type SortKey,
  sortKeys,
  type WhereCondition,
  type WhereOp,
  type WhereParams,
} from './content/list-language';
export { isTrellisError, TrellisError } from './errors/trellis-error';
export { canonicalJson } from './hash/canonical-json';
export { contentHash } from './hash/content-hash';
export { sortableId } from './ids/sortable-id';
export type { ArtifactDeps } from './publishing/artifact-deps';
export { BUILD_MODES } from './publishing/build-modes';
export { chooseBuildMode, depsChanged, impactedArtifacts } from './publishing/impacted-artifacts';
export {
  defaultLocaleOf,
  fillLocale,
  hasLocalePlaceholder,
  type LocaleLike,
  localeChain,
  localizedFields,
  publishedLocales,
  translateKey,
} from './publishing/locales';
export {
  itemSlug,
  normalizeRoute,
  parentRelationship,
  type RoutableItem,
  resolveRoute,
} from './publishing/route-pattern';
