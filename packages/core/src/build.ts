/**
 * `@trelliscms/core/build`: the pure helpers a build's render workers need, without the zod
 * schemas (a worker starts without loading them). Everything here is also exported from
 * `@trelliscms/core`.
 */

export {
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
export { canonicalJson } from './hash/canonical-json';
export type { ArtifactDeps } from './publishing/artifact-deps';
export { itemSlug, type RoutableItem } from './publishing/route-pattern';
