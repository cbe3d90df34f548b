import { ErrorSchema } from '@trelliscms/core';

/** The error statuses route schemas document; each answers `{error, code?}` (docs/api-spec.md §7). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 502 | 503 | 504;

/** A route schema's error responses: `{400: ErrorSchema, …}` for the given statuses. */
export function errorResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, typeof ErrorSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorSchema])) as Record<S, typeof ErrorSchema>;
}
