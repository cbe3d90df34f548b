export { ApiError, type ApiErrorBody, type ApiErrorInit, isApiError } from './api-error';
export { ConnectionError, type ConnectionErrorInit, isConnectionError } from './connection-error';
export { isSchemaError, SchemaError, type SchemaErrorInit, type SchemaIssue } from './schema-error';
