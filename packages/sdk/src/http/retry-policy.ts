/** What the retry policy looks at when a request fails. */
export interface FailedAttempt {
  /** Upper-case HTTP method. */
  method: string;
  /** The HTTP status; undefined when no answer came back (connection refused, reset). */
  status: number | undefined;
  /** The `code` of the error body, when there was one. */
  code: string | undefined;
  /** Whether the request carried an `Idempotency-Key` (a repeat cannot write twice). */
  isIdempotent?: boolean;
}

const READS = new Set(['GET', 'HEAD']);

/**
 * Whether a failed request is safe to send again (issue 7, docs/api-spec.md §7):
 * - reads (GET, HEAD) after a lost connection or a transient 500/502/504, since they change
 *   nothing, and writes with an `Idempotency-Key`, whose repeat the server answers once;
 * - any method on 429 and 503, which the server answers before doing any work;
 * - a write with an `Idempotency-Key` answered 409 `idempotency_key_in_progress` (its first
 *   attempt is still running; the retry gets its answer);
 * - 502 `template_write_not_visible` and 500 `partial_site_creation`, which the spec marks
 *   as idempotent retries.
 * Nothing else: a write that may have been applied is never repeated.
 */
export function isRetryable(attempt: FailedAttempt): boolean {
  const isRead = READS.has(attempt.method.toUpperCase()) || attempt.isIdempotent === true;
  if (attempt.status === undefined) return isRead;
  if (attempt.status === 429 || attempt.status === 503) return true;
  if (attempt.status === 409) return attempt.code === 'idempotency_key_in_progress';
  if (attempt.status === 502 && attempt.code === 'template_write_not_visible') return true;
  if (attempt.status === 500 && attempt.code === 'partial_site_creation') return true;
  return isRead && (attempt.status === 500 || attempt.status === 502 || attempt.status === 504);
}
