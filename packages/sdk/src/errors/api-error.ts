import type { ErrorBody } from '@trelliscms/core';
/**
 * The body of a non-2xx answer: core's `{error, code?}` with `hint` and extras (docs/api-spec.md
 * §7), each part optional, since a proxy in between may answer in another shape.
 */
export type ApiErrorBody = Partial<ErrorBody>;

export interface ApiErrorInit {
  status: number;
  method: string;
  url: string;
  /** The parsed JSON body, or the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
  headers?: Headers;
}

/**
 * The server answered with a non-2xx status. Carries the status, the error `code` and
 * `hint` of the body (when the server gave them) and the parsed body itself, so extras such
 * as `suggestedBatchSize` on a 413 are one property away.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status, e.g. 404. */
  readonly status: number;
  /** The machine-readable error code of the body, e.g. `not_found`; undefined when absent. */
  readonly code: string | undefined;
  /** The human-readable `error` text of the body (falls back to the status line). */
  readonly error: string;
  /** What to do next, when the server gave a hint. */
  readonly hint: string | undefined;
  /** The parsed body: an object for JSON answers, a string otherwise, undefined when empty. */
  readonly body: unknown;
  /** The request method, upper case. */
  readonly method: string;
  /** The full request URL. */
  readonly url: string;
  /** The `Retry-After` header in seconds, when the server sent one as a number. */
  readonly retryAfter: number | undefined;
  /**
   * The server's id of the request (its `X-Request-Id` header, the `requestId` of its log
   * lines): give it to `bugs.report` so an operator finds what happened.
   */
  readonly requestId: string | undefined;

  constructor(init: ApiErrorInit) {
    const record = isRecord(init.body) ? (init.body as ApiErrorBody) : undefined;
    const text =
      typeof record?.error === 'string'
        ? record.error
        : typeof init.body === 'string' && init.body.length > 0 && init.body.length < 500
          ? init.body
          : `HTTP ${init.status}`;
    super(`${init.method} ${pathOf(init.url)} failed with ${init.status}: ${text}`);
    this.status = init.status;
    this.code = typeof record?.code === 'string' ? record.code : undefined;
    this.error = text;
    this.hint = typeof record?.hint === 'string' ? record.hint : undefined;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
    const retryAfter = init.headers?.get('retry-after');
    this.retryAfter = retryAfter != null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    this.requestId = init.headers?.get('x-request-id') ?? undefined;
  }
}

/** True for an {@link ApiError}, also one from another copy of the SDK (matched by name). */
export function isApiError(value: unknown): value is ApiError {
  return (
    value instanceof ApiError ||
    (isRecord(value) && value.name === 'ApiError' && typeof value.status === 'number')
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}
