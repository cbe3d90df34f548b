// types of the contract, spelled in core
export type { BuildMode, DeployResult, ServeCheck, TransformError } from '@trelliscms/core';
export {
  BUILDER_OUTPUT_VERSION,
  type BuildFile,
  type BuildOptions,
  type BuildProgress,
  type BuildResult,
  build,
  globalHashOf,
} from './build';
export { createDirectoryTarget } from './deploy/directory-target';
export { createFolderTarget } from './deploy/folder-target';
export { contentTypeOf, createS3Target, type S3TargetOptions } from './deploy/s3-target';
export { serveCheck } from './deploy/serve-check';
export type {
  ActivateResult,
  CommitParams,
  DeployCapabilities,
  DeployedVersion,
  DeployTarget,
  PruneParams,
  PruneResult,
  StoredFile,
  WriteSession,
} from './deploy/types';
export { BuildCache } from './incremental/build-cache';
export { assertTemplateParses, assertTemplateParsesInWorker } from './liquid/assert-template';
export { checkTemplate, type TemplateProblem } from './liquid/check-template';
export { type CreateLiquidParams, createLiquid, type LiquidLimits } from './liquid/create-liquid';
export {
  absoluteUrl,
  markdownToHtml,
  mediaUrl,
  relativeUrl,
  slugify,
  type UrlSettings,
} from './liquid/filters';
export { templateReferences } from './liquid/memory-fs';
export {
  type ArtifactSpec,
  type BuildIssue,
  type BuildPlan,
  emitsPages,
  pageTemplateFor,
  planArtifacts,
} from './plan/plan-artifacts';
export {
  applyTransforms,
  DEFAULT_TRANSFORM_BUDGET_MS,
  DEFAULT_TRANSFORM_TIME_MS,
  type TransformLimits,
  type TransformOutcome,
} from './render/apply-transforms';
export { RenderPool, type WorkerLimits } from './render/render-pool';
export { STUB_PAGE } from './render/renderer';
export { renderTemplate } from './render-template';
export { activateVersion, rollback } from './rollback';
export { applyTransformsInWorker } from './sandbox/apply-transforms-in-worker';
export { checkTemplateInWorker, DEFAULT_CHECK_TIMEOUT_MS } from './sandbox/check-template-in-worker';
export { LiquidSandbox, SandboxStoppedError } from './sandbox/liquid-sandbox';
export { runScriptInWorker } from './sandbox/run-script-in-worker';
export {
  DEFAULT_SCRIPT_MEMORY_MB,
  DEFAULT_SCRIPT_TIMEOUT_MS,
  loadScriptRunner,
  type ScriptJobInput,
  type ScriptOutcome,
  type ScriptRunner,
} from './sandbox/script-runner';
export { assertSnapshot, isSnapshot, readSnapshotFile } from './snapshot/read-snapshot';
export type {
  Snapshot,
  SnapshotEdge,
  SnapshotFieldDef,
  SnapshotItem,
  SnapshotRelationshipDef,
  SnapshotRoute,
  SnapshotSite,
  SnapshotTemplate,
  SnapshotTransform,
  SnapshotType,
} from './snapshot/types';
export { ApiSource, type ApiSourceOptions } from './source/api-source';
export type {
  ContentSource,
  ListQuery,
  ListResult,
  MaybePromise,
  SimilarQuery,
  TraverseQuery,
  WhereCondition,
} from './source/content-source';
export { isVisibleIn, SnapshotSource } from './source/snapshot-source';
