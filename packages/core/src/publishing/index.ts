export {
  type ArtifactDeps,
  type AuditHeadAnchor,
  type BuildManifest,
  type DependencyReader,
  emptyDeps,
  type ManifestArtifact,
} from './artifact-deps';
export { BUILD_MODES } from './build-modes';
export {
  chooseBuildMode,
  depsChanged,
  type IncrementalPlan,
  impactedArtifacts,
  type PlannedArtifact,
} from './impacted-artifacts';
export {
  defaultLocaleOf,
  fillLocale,
  hasLocalePlaceholder,
  LOCALE_PLACEHOLDER,
  type LocaleLike,
  localeChain,
  localeSetProblems,
  localizedFields,
  publishedLocales,
  translateKey,
} from './locales';
export {
  itemSlug,
  normalizeRoute,
  type ParentRelationship,
  parentRelationship,
  type ResolvedRoute,
  type RoutableItem,
  resolveRoute,
} from './route-pattern';
