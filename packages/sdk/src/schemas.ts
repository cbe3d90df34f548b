/**
 * The core schemas the SDK parses answers with and takes its types from, gathered in one
 * place. Where the spec leaves a body open (releases, media), the SDK checks only that the
 * answer is a JSON object or an array of them.
 */
import type {
  AddIncludeBody,
  AppendBlockBody,
  BuildBody,
  CreateApiKeyBody,
  CreateBlockTypeBody,
  CreateContentBody,
  CreateContentTypeBody,
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
  DeployReleaseBody,
  DripPreviewBody,
  DripScheduleBody,
  EdgeTriple,
  GrantBody,
  ImportEdgesBody,
  ImportJsonBody,
  PublishContentBody,
  ReleaseTransitionBody,
  RunQueryBody,
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
  UpsertEnvironmentBody,
  ViewSeoBody,
  WorkflowTransitionBody,
} from '@trelliscms/core';
import { JsonObject } from '@trelliscms/core';
import { z } from 'zod';

export {
  AccessEntry,
  AccessEntryList,
  ApiKey,
  ApiKeyCacheMetrics,
  ApiKeyCreated,
  ApiKeyList,
  AuditChecklist,
  AuditStatus,
  BlockChangeResponse,
  BlockType,
  BlockTypeList,
  BuildAccepted,
  BuildHistory,
  BuildResult,
  BuildRollbackResponse,
  BuildStatus,
  ContentListEnvelope,
  ContentRecord,
  ContentType,
  ContentTypeSummary,
  ContentTypeSummaryList,
  DeleteSiteResponse,
  Deployment,
  DeploymentList,
  DripPreviewResponse,
  DripScheduleResponse,
  EmbeddingsMaterializeResponse,
  EngineProcedures,
  Environment,
  EnvironmentList,
  GrantResponse,
  HealthDetailResponse,
  HealthResponse,
  ImportEdgesResponse,
  ImportJsonResponse,
  ItemVersion,
  ItemVersionList,
  JsonObject,
  Locale,
  LocaleList,
  MediaAsset,
  MediaAssetList,
  MediaCount,
  Member,
  MemberList,
  PageKit,
  PageKitList,
  Release,
  ReleaseList,
  ReplayResponse,
  RevokeApiKeyResponse,
  RevokeMemberResponse,
  Route,
  RouteList,
  RunQueryResponse,
  SavedQuery,
  SavedQueryList,
  Script,
  ScriptList,
  Seo,
  Site,
  SiteList,
  SiteSnapshot,
  StockResponse,
  Template,
  TemplateList,
  Transform,
  TransformList,
  Translations,
  View,
  ViewList,
  Widget,
  WidgetList,
  Workflow,
  WorkflowItemState,
  WorkflowList,
} from '@trelliscms/core';

import { ContentRecord } from '@trelliscms/core';

/** GET /api/content/{type} without withMeta: a bare array. */
export const ContentRecordList = z.array(ContentRecord);
/** A JSON object whose fields the spec does not fix. */
export const AnyObject = JsonObject;
/** An array of JSON objects whose fields the spec does not fix. */
export const AnyObjectList = z.array(JsonObject);
/** A JSON object or an array of them (lists whose shape the spec leaves open). */
export const AnyObjectOrList = z.union([z.array(JsonObject), JsonObject]);

/** Request body types: what the server accepts (`z.input` of the core schemas, so defaults stay optional). */
export type SiteCreateInput = z.input<typeof CreateSiteBody>;
export type SiteUpdateInput = z.input<typeof UpdateSiteBody>;
export type GrantInput = z.input<typeof GrantBody>;
export type MemberRoleInput = z.input<typeof UpdateMemberRoleBody>;
export type ApiKeyCreateInput = z.input<typeof CreateApiKeyBody>;
export type ContentTypeInput = z.input<typeof CreateContentTypeBody>;
export type ContentTypePatchInput = z.input<typeof UpdateContentTypeBody>;
export type ContentCreateInput = z.input<typeof CreateContentBody>;
export type ContentUpdateInput = z.input<typeof UpdateContentBody>;
export type AppendBlockInput = z.input<typeof AppendBlockBody>;
export type ImportJsonInput = z.input<typeof ImportJsonBody>;
export type ImportEdgesInput = z.input<typeof ImportEdgesBody>;
export type EdgeInput = z.input<typeof EdgeTriple>;
export type TemplateCreateInput = z.input<typeof CreateTemplateBody>;
export type TemplateUpdateInput = z.input<typeof UpdateTemplateBody>;
export type BuildInput = z.input<typeof BuildBody>;
export type RouteCreateInput = z.input<typeof CreateRouteBody>;
export type RouteUpdateInput = z.input<typeof UpdateRouteBody>;
export type ViewCreateInput = z.input<typeof CreateViewBody>;
export type ViewUpdateInput = z.input<typeof UpdateViewBody>;
export type ViewSeoInput = z.input<typeof ViewSeoBody>;
export type TransformCreateInput = z.input<typeof CreateTransformBody>;
export type TransformUpdateInput = z.input<typeof UpdateTransformBody>;
export type SavedQueryCreateInput = z.input<typeof CreateSavedQueryBody>;
export type SavedQueryUpdateInput = z.input<typeof UpdateSavedQueryBody>;
export type RunQueryInput = z.input<typeof RunQueryBody>;
export type UpsertEnvironmentInput = z.input<typeof UpsertEnvironmentBody>;
export type ReleaseCreateInput = z.input<typeof CreateReleaseBody>;
export type AddIncludeInput = z.input<typeof AddIncludeBody>;
export type ReleaseTransitionInput = z.input<typeof ReleaseTransitionBody>;
export type DeployReleaseInput = z.input<typeof DeployReleaseBody>;
export type DripPreviewInput = z.input<typeof DripPreviewBody>;
export type DripScheduleInput = z.input<typeof DripScheduleBody>;
export type ScriptCreateInput = z.input<typeof CreateScriptBody>;
export type ScriptUpdateInput = z.input<typeof UpdateScriptBody>;
export type BlockTypeCreateInput = z.input<typeof CreateBlockTypeBody>;
export type BlockTypeUpdateInput = z.input<typeof UpdateBlockTypeBody>;
export type WidgetCreateInput = z.input<typeof CreateWidgetBody>;
export type WidgetUpdateInput = z.input<typeof UpdateWidgetBody>;
export type PageKitCreateInput = z.input<typeof CreatePageKitBody>;
export type PageKitUpdateInput = z.input<typeof UpdatePageKitBody>;
export type LocaleCreateInput = z.input<typeof CreateLocaleBody>;
export type LocaleUpdateInput = z.input<typeof UpdateLocaleBody>;
export type TranslationsUpdateInput = z.input<typeof UpdateTranslationsBody>;
export type WorkflowCreateInput = z.input<typeof CreateWorkflowBody>;
export type WorkflowTransitionInput = z.input<typeof WorkflowTransitionBody>;
export type PublishInput = z.input<typeof PublishContentBody>;
