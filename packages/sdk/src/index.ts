export { type ClientOptions, createClient, type SiteClient, type TrellisClient } from './client';
export * from './errors';
export { isRetryable } from './http/retry-policy';
export type { CallOptions, RetryOptions } from './http/transport';
export type { AccessApi, AccessRecord, Grant } from './namespaces/access';
export type { ApiKeyRecord, ApiKeyRevoked, ApiKeysApi, ApiKeyWithSecret } from './namespaces/api-keys';
export type { AuditApi, AuditChecklistResult, AuditVerdict } from './namespaces/audit';
export {
  type BuildApi,
  type BuildOutcome,
  type BuildRollback,
  type BuildStarted,
  type BuildState,
  BuildWaitTimeoutError,
  type WaitOptions,
} from './namespaces/build';
export type {
  BlockChange,
  ContentApi,
  ContentFilter,
  ContentItem,
  ContentPage,
  ContentPageQuery,
  ItemVersionRecord,
  IterateOptions,
} from './namespaces/content';
export type { ExportApi, SiteSnapshotRecord } from './namespaces/export';
export type { ApiKeyCacheStats, Health, HealthApi, HealthDetail } from './namespaces/health';
export type {
  ImportAllEdgesOptions,
  ImportAllEdgesResult,
  ImportApi,
  ImportEdgesResult,
  ImportJsonResult,
  ImportProgress,
  ImportRecordsOptions,
  ImportRecordsResult,
} from './namespaces/import';
export type { EmbeddingsMaterialized, EngineProcedureList, MaintenanceApi } from './namespaces/maintenance';
export type { MediaApi, MediaAssetRecord, StockResult } from './namespaces/media';
export type { MemberRevoked, MembersApi, SiteMember } from './namespaces/members';
export type {
  DeploymentRecord,
  DripPreview,
  DripScheduled,
  EnvironmentRecord,
  ReleaseRecord,
  ReleasesApi,
  Replay,
} from './namespaces/releases';
export type { ResourceApi } from './namespaces/resource';
export type * from './namespaces/site-resources';
export type { SiteDeleted, SiteRecord, SitesApi } from './namespaces/sites';
export type { TemplateRecord, TemplatesApi } from './namespaces/templates';
export type { ApplyTypeResult, ContentTypeListEntry, ContentTypeRecord, TypesApi } from './namespaces/types';
export type * from './schemas-types';
