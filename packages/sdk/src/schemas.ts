/**
 * The core schemas the SDK parses answers with and takes its types from, gathered in one
 * place. Where the spec leaves a body open (releases, media), the SDK checks only that the
 * answer is a JSON object or an array of them.
 */
import type {
  AppendBlockBody,
  BuildBody,
  CreateApiKeyBody,
  CreateContentBody,
  CreateContentTypeBody,
  CreateRouteBody,
  CreateSavedQueryBody,
  CreateSiteBody,
  CreateTemplateBody,
  CreateTransformBody,
  CreateViewBody,
  EdgeTriple,
  GrantBody,
  ImportEdgesBody,
  ImportJsonBody,
  RunQueryBody,
  UpdateContentBody,
  UpdateContentTypeBody,
  UpdateMemberRoleBody,
  UpdateRouteBody,
  UpdateSavedQueryBody,
  UpdateSiteBody,
  UpdateTemplateBody,
  UpdateTransformBody,
  UpdateViewBody,
  ViewSeoBody,
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
  EngineProcedures,
  GrantResponse,
  HealthDetailResponse,
  HealthResponse,
  ImportEdgesResponse,
  ImportJsonResponse,
  JsonObject,
  Member,
  MemberList,
  RevokeApiKeyResponse,
  RevokeMemberResponse,
  Route,
  RouteList,
  RunQueryResponse,
  SavedQuery,
  SavedQueryList,
  Site,
  SiteList,
  Template,
  TemplateList,
  Transform,
  TransformList,
  View,
  ViewList,
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
