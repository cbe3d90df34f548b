import { isApiError, isConnectionError, isSchemaError } from '@trelliscms/sdk';
import { inCmsTerms } from './io/cms-terms';

/** The exit codes of `cms` (documented in the README). */
export const ExitCode = {
  /** Everything worked. */
  ok: 0,
  /** The server answered with an error (4xx/5xx), a build ended in error, or a deployment failed. */
  apiError: 1,
  /** The command line was wrong: unknown option, missing argument, unreadable input file, no site. */
  usage: 2,
  /** The server could not be reached, or did not answer in time. */
  connection: 3,
  /** Partly done: some records or edges failed, or a build finished with transform errors. */
  partial: 4,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake on the command line or in its input; exits with {@link ExitCode.usage}. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** True for a {@link UsageError}, also matched by name. */
export function isUsageError(value: unknown): value is UsageError {
  return value instanceof UsageError || (value as { name?: unknown } | null)?.name === 'UsageError';
}

/** The exit code an error ends the command with. */
export function exitCodeOf(error: unknown): ExitCodeValue {
  if (isUsageError(error)) return ExitCode.usage;
  if (isConnectionError(error)) return ExitCode.connection;
  return ExitCode.apiError;
}

/**
 * One or two lines for a person: what failed (status and code for API errors) and, when
 * the server gave one, the hint. Never a stack trace.
 */
export function formatError(error: unknown): string {
  if (isApiError(error)) {
    const code = error.code ? ` ${error.code}` : '';
    const lines = [`Error: ${error.status}${code}: ${inCmsTerms(error.error)}`];
    lines.push(...holderLines(error.body));
    if (error.hint) lines.push(`Hint: ${inCmsTerms(error.hint)}`);
    else if (error.status === 401)
      lines.push(
        'Hint: check the API key: cms whoami shows the one in use; cms login --key-stdin saves another.',
      );
    else if (error.status === 403) lines.push('Hint: the key has no access to this site or action.');
    // The server's log lines of the request carry this id: a report with it can be matched.
    if (error.status >= 500 && error.requestId) {
      lines.push(
        `Request id: ${error.requestId} (report it: cms bugs report "<what you did>" --request-id ${error.requestId})`,
      );
    }
    return lines.join('\n');
  }
  if (isConnectionError(error)) {
    const what = error.isTimeout ? 'did not answer in time' : 'could not be reached';
    return `Error: the server ${what} (${error.method} ${error.url}).\nHint: check --url / CMS_URL and that the server is running.`;
  }
  if (isSchemaError(error)) {
    return `Error: the server's answer to ${error.method} ${error.url} is not what this CLI expects (${error.issues
      .slice(0, 2)
      .map((issue) => `${issue.path || '(root)'}: ${issue.message}`)
      .join('; ')}).\nHint: the CLI and server versions may differ.`;
  }
  if (isUsageError(error)) return `Error: ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

/** How many holders of a 409 `in_use` are printed, one a line. */
const HOLDER_LINES = 20;

/** The holders a 409 `in_use` names (what still uses the resource), one a line: `  - route home: redirects ...`. */
function holderLines(body: unknown): string[] {
  const { holders, holderCount } = (body ?? {}) as { holders?: unknown; holderCount?: unknown };
  if (!Array.isArray(holders) || holders.length === 0) return [];
  const lines = holders
    .slice(0, HOLDER_LINES)
    .map((holder: { kind?: unknown; id?: unknown; detail?: unknown }) => {
      const detail = typeof holder.detail === 'string' ? `: ${holder.detail}` : '';
      return `  - ${String(holder.kind)} ${String(holder.id)}${detail}`;
    });
  const total = typeof holderCount === 'number' ? holderCount : holders.length;
  if (total > lines.length) lines.push(`  ... and ${total - lines.length} more`);
  return lines;
}

/** A JSON body for `--json` output of an error (with `holders` and `holderCount` of a 409 `in_use`). */
export function errorJson(error: unknown): Record<string, unknown> {
  if (isApiError(error)) {
    const { holders, holderCount } = (error.body ?? {}) as { holders?: unknown; holderCount?: unknown };
    return {
      ok: false,
      status: error.status,
      code: error.code ?? null,
      error: error.error,
      hint: error.hint ?? null,
      ...(Array.isArray(holders) ? { holders, holderCount } : {}),
    };
  }
  if (isConnectionError(error)) return { ok: false, code: 'connection_error', error: error.message };
  if (isUsageError(error)) return { ok: false, code: 'usage_error', error: error.message };
  return { ok: false, error: error instanceof Error ? error.message : String(error) };
}
