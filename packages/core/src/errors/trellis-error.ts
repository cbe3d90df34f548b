import { type ErrorCode, errorRegistry } from './registry';

/** The wire shape of every error (docs/api-spec.md §7): `{error, code?}` plus optional extras such as `hint`. */
export interface ErrorBody {
  error: string;
  code?: string;
  hint?: string;
  [extra: string]: unknown;
}

export interface TrellisErrorOptions {
  /** A hint for the caller: what to do next (docs/api-spec.md §4 gives one on 502s). */
  hint?: string;
  /** Extra fields rendered into the body beside `error` and `code` (e.g. `suggestedBatchSize`). */
  extra?: Record<string, unknown>;
  /** HTTP headers to send with the error (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type of the domain. A route throws it; the server's error handler renders it
 * as `{error, code, hint?, ...extra}` with `status`. Anything else thrown is an internal error
 * whose text is never shown.
 */
export class TrellisError extends Error {
  override readonly name = 'TrellisError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: TrellisErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = errorRegistry[code].status;
    this.hint = options.hint;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /** Builds an error from the registry's message template, filling `{name}` from `params`. */
  static of(
    code: ErrorCode,
    params: Record<string, string | number> = {},
    options: TrellisErrorOptions = {},
  ): TrellisError {
    const template: string = errorRegistry[code].message;
    const message = template.replace(/\{(\w+)\}/g, (whole, key: string) =>
      key in params ? String(params[key]) : whole,
    );
    return new TrellisError(code, message, options);
  }

  /** The response body. */
  toBody(): ErrorBody {
    const body: ErrorBody = { ...this.extra, error: this.message, code: this.code };
    if (this.hint !== undefined) body.hint = this.hint;
    return body;
  }
}

/** True for a {@link TrellisError}, also across package copies (matched by name and shape). */
export function isTrellisError(value: unknown): value is TrellisError {
  return (
    value instanceof TrellisError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { name?: unknown }).name === 'TrellisError' &&
      typeof (value as { status?: unknown }).status === 'number' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}
