/**
 * The contract types, under core's names: what each method answers (`z.output` of the core
 * schema) and the request bodies. A method's parameter is `z.input<typeof Body>` of the same
 * schema, so fields with a default may be left out.
 */
export type {
  AccessEntry,
  AddIncludeBody,
  AiAltTextBody,
  AiAltTextResponse,
  AiSeoDescriptionBody,
  AiSeoDescriptionResponse,
  AiSuggestTagsBody,
  AiSuggestTagsResponse,
  AiSummarizeBody,
  AiSummarizeResponse,
  AiTag,
  AiTranslateBody,
  AiTranslateResponse,
  AiUsage,
  ApiKey,
  ApiKeyCacheMetrics,
  ApiKeyCreated,
  AppendBlockBody,
  AuditChecklist,
  AuditEntry,
  AuditLog,
  AuditStatus,
  BlockChangeResponse,
  BlockType,
  BugReport,
  BuildAccepted,
  BuildBody,
  BuildResult,
  BuildRollbackResponse,
  BuildStatus,
  BulkPublishBody,
  BulkPublishResponse,
  ContentListEnvelope,
  ContentRecord,
  ContentType,
  ContentTypeSummary,
  CreateApiKeyBody,
  CreateBlockTypeBody,
  CreateBugReportBody,
  CreateContentBody,
  CreateContentTypeBody,
  CreateInvitationBody,
  CreateLocaleBody,
  CreatePageKitBody,
  CreateReleaseBody,
  CreateRouteBody,
  CreateSavedQueryBody,
  CreateScriptBody,
  CreateSiteBody,
  CreateTemplateBody,
  CreateTransformBody,
  CreateViewBody,
  CreateWidgetBody,
  CreateWorkflowBody,
  DeleteSiteResponse,
  Deployment,
  DeploymentStatus,
  DeployReleaseBody,
  DripPreviewBody,
  DripPreviewResponse,
  DripScheduleBody,
  DripScheduleResponse,
  EdgeTriple,
  EmbeddingsMaterializeResponse,
  EngineProcedures,
  Environment,
  GrantBody,
  GrantResponse,
  GraphQuery,
  HealthDetailResponse,
  HealthResponse,
  ImportEdgesBody,
  ImportEdgesResponse,
  ImportJsonBody,
  ImportJsonResponse,
  Include,
  Invitation,
  InvitationAccepted,
  InvitationCreated,
  ItemTranslation,
  ItemVersion,
  Lead,
  LiveEntry,
  LiveState,
  LiveStateQuery,
  Locale,
  MediaAsset,
  Member,
  PageKit,
  PublishContentBody,
  Release,
  ReleaseTransitionBody,
  ReplayQuery,
  ReplayResponse,
  Review,
  RevokeApiKeyResponse,
  RevokeMemberResponse,
  Route,
  RunQueryBody,
  RunQueryResponse,
  SavedQuery,
  Script,
  Seo,
  Site,
  SiteSnapshot,
  StockCredit,
  StockImportBody,
  StockItem,
  StockResponse,
  Template,
  Transform,
  Translations,
  UpdateBlockTypeBody,
  UpdateContentBody,
  UpdateContentTypeBody,
  UpdateLocaleBody,
  UpdateMemberRoleBody,
  UpdatePageKitBody,
  UpdateRouteBody,
  UpdateSavedQueryBody,
  UpdateScriptBody,
  UpdateSiteBody,
  UpdateTemplateBody,
  UpdateTransformBody,
  UpdateTranslationsBody,
  UpdateViewBody,
  UpdateWidgetBody,
  UpdateWorkflowBody,
  UpsertEnvironmentBody,
  UserMatch,
  UserMatchList,
  View,
  ViewSeoBody,
  Widget,
  Workflow,
  WorkflowHistoryEntry,
  WorkflowItemState,
  WorkflowTransitionBody,
  WorkflowTransitionResponse,
} from '@trelliscms/core';
export {
  type ClientOptions,
  createClient,
  type RetryWait,
  type SiteClient,
  type TrellisClient,
  type TypedSiteClient,
  withContentTypes,
} from './client';
export * from './errors';
export type { NoRollbackReason, RollbackTarget } from './helpers/rollback-target';
export { isRetryable } from './http/retry-policy';
export type { CallOptions, ListPage, RetryOptions } from './http/transport';
export type { AccessApi } from './namespaces/access';
export type { AiApi } from './namespaces/ai';
export type { ApiKeysApi } from './namespaces/api-keys';
export type { AuditApi, AuditLogFilters } from './namespaces/audit';
export type { BugsApi } from './namespaces/bugs';
export { type BuildApi, BuildWaitTimeoutError, type WaitOptions } from './namespaces/build';
export type { ContentApi, ContentFilter, ContentPageQuery, IterateOptions } from './namespaces/content';
export type { ExportApi } from './namespaces/export';
export type { HealthApi } from './namespaces/health';
export type {
  ImportAllEdgesOptions,
  ImportAllEdgesResult,
  ImportApi,
  ImportProgress,
  ImportRecordsOptions,
  ImportRecordsResult,
} from './namespaces/import';
export type { LeadsApi } from './namespaces/leads';
export type { LocalesApi } from './namespaces/locales';
export type { MaintenanceApi } from './namespaces/maintenance';
export type { MediaApi } from './namespaces/media';
export type { MembersApi } from './namespaces/members';
export type { NotificationListQuery, NotificationsApi } from './namespaces/notifications';
export type { QueriesApi } from './namespaces/queries';
export {
  type DeploymentWaitOptions,
  DeploymentWaitTimeoutError,
  type EnvironmentRollback,
  type IncludeItemOptions,
  NoRollbackTargetError,
  type SubmitAndApproveOptions,
} from './namespaces/release-helpers';
export type { DeploymentListQuery, ReleaseListQuery, ReleasesApi } from './namespaces/releases';
export type { DeleteQuery, ResourceApi } from './namespaces/resource';
export type { SdkFilesApi } from './namespaces/sdk-files';
export type {
  BlockTypesApi,
  PageKitsApi,
  RoutesApi,
  ScriptsApi,
  TransformsApi,
  ViewsApi,
  WidgetsApi,
} from './namespaces/site-resources';
export type { SitesApi } from './namespaces/sites';
export type { TemplatesApi } from './namespaces/templates';
export type {
  ContentTypeMap,
  TypedContentApi,
  TypedContentRecord,
  TypedCreateBody,
  TypedUpdateBody,
} from './namespaces/typed-content';
export type { ApplyTypeResult, TypesApi } from './namespaces/types';
export type { DeliveryListQuery, WebhooksApi } from './namespaces/webhooks';
export type { WorkflowsApi } from './namespaces/workflows';
export {
  isWebhookSignatureError,
  type VerifyWebhookSignatureInput,
  verifyWebhookSignature,
  WebhookSignatureError,
  type WebhookSignatureProblem,
} from './webhooks/verify-signature';
