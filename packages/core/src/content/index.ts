export { contentId, deriveSlug, isSlug, parseContentId, slugify } from './content-id';
export { type ContentWriteInput, toContentWrite } from './content-write';
export { CSV_LIST_SEPARATOR, fieldValueFromCell, recordFromCsvRow } from './csv-record';
export {
  isSingleTarget,
  RESERVED_FIELD_NAMES,
  RESERVED_NODE_LABELS,
  RESERVED_TYPE_NAMES,
  type StoredContentType,
  TEXT_FIELD_TYPES,
} from './definitions';
export {
  checkFieldValue,
  compileFieldRegex,
  isContentIdShape,
  isIsoDate,
  isIsoDateTime,
  MAX_REGEX_LENGTH,
  type ValueReference,
} from './field-value';
export {
  bindQueryParams,
  checkGraphQuery,
  DEFAULT_QUERY_LIMIT,
  driveAsync,
  driveSync,
  evaluateGraphQuery,
  type GraphQueryReader,
  listQueryDetail,
  MAX_QUERY_LIMIT,
  type MaybePromise,
  type QueryItem,
  type QueryResult,
  type QueryTypeInfo,
  queryRow,
  queryValue,
  runGraphQuery,
  runGraphQuerySync,
} from './graph-query';
export { embeddingText, HASHED_BOW_DIMENSIONS, hashedBagOfWords, wordTokens } from './hashed-bag-of-words';
export {
  batchCount,
  batchRanges,
  GATEWAY_TIMEOUT_MS,
  type GatewayTimeoutWarning,
  gatewayTimeoutWarning,
  IMPORT_MAX_EDGES,
  IMPORT_MAX_RECORDS,
  perSecond,
  type SplitAdvice,
  splitAdvice,
  tooManyAdvice,
} from './import-plan';
export {
  bindParams,
  compareValues,
  conditionHolds,
  instantOf,
  isParamRef,
  LIST_BUILT_INS,
  MAX_LIST_QUERY_LENGTH,
  type ParamRef,
  type ParseWhereOptions,
  paramNames,
  parseSort,
  parseWhere,
  type SortKey,
  sortKeys,
  type WhereCondition,
  type WhereOp,
  type WhereParams,
} from './list-language';
export { searchText } from './search-text';
export {
  fieldTsType,
  type SiteTypescriptSource,
  siteClientSource,
  siteTypesDeclaration,
  typeIdentifier,
} from './site-typescript';
export { findTypeChangeConflicts, type TypeChangeConflict } from './type-change-conflicts';
export {
  ITEM_STATUSES,
  type ListField,
  listField,
  type TypedCondition,
  type TypedSortKey,
  typeListQuery,
} from './type-list-query';
export {
  describeIssues,
  type FieldIssue,
  invalidFieldsError,
  type ValidatedFields,
  type ValidatedRelationships,
  validateFields,
  validateRelationships,
} from './validate-fields';
export { type TypeDefinitionResult, validateTypeDefinition } from './validate-type-definition';
export {
  allowedTransitions,
  DEFAULT_WORKFLOW,
  DEFAULT_WORKFLOW_NAME,
  effectiveState,
  isPublishedState,
  type MoveRequest,
  mayTake,
  PUBLISHED_STATE,
  planMove,
  planPublish,
  planUnpublish,
  publishesOf,
  rolesOf,
  workflowForType,
} from './workflow-rules';
