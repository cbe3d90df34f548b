export interface ConnectionErrorInit {
  method: string;
  url: string;
  /** True when the request was stopped by the client's `timeoutMs`. */
  isTimeout: boolean;
  cause: unknown;
}

/**
 * No answer came back: the server could not be reached, the connection broke, or the
 * request ran past `timeoutMs`. The original error is in `cause`.
 */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  readonly method: string;
  readonly url: string;
  readonly isTimeout: boolean;

  constructor(init: ConnectionErrorInit) {
    const reason = init.isTimeout ? 'timed out' : `could not connect (${describe(init.cause)})`;
    super(`${init.method} ${init.url} ${reason}`, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.isTimeout = init.isTimeout;
  }
}

/** True for a {@link ConnectionError}, also one from another copy of the SDK (matched by name). */
export function isConnectionError(value: unknown): value is ConnectionError {
  return (
    value instanceof ConnectionError ||
    (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'ConnectionError')
  );
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const code = typeof inner === 'object' && inner !== null ? (inner as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? `${cause.message}: ${code}` : cause.message;
  }
  return String(cause);
}
