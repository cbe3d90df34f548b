import { isTrellisError, TrellisError } from '@trelliscms/core';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isEngineError } from '../../engines/port';
import { fromEngineError } from '../../shared/from-engine-error';

/** At most this many validation issues are written in a 400; the rest are counted. */
export const MAX_REPORTED_ISSUES = 20;
/** Longest text of one reported issue (an unrecognized-keys issue lists every key). */
const MAX_ISSUE_LENGTH = 300;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The issues of a failed validation as one `detail`: the first {@link MAX_REPORTED_ISSUES}
 * (formatted by `format`, each clipped), then how many were left out — so a body with a
 * million bad fields gets a short answer, and only the reported issues are formatted.
 */
export function issuesDetail<T>(issues: readonly T[], format: (issue: T) => string): string {
  const shown = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => clip(format(issue), MAX_ISSUE_LENGTH));
  const left = issues.length - shown.length;
  return left > 0 ? `${shown.join('; ')}; … and ${left} more issue(s) left out` : shown.join('; ');
}

/** Turns anything thrown into a {@link TrellisError}; unknown errors become a hidden 500. */
export function toTrellisError(error: unknown, requestId: string, bodyLimit?: number): TrellisError {
  if (isTrellisError(error)) return error;
  if (isEngineError(error)) return fromEngineError(error);
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    const context = fastifyError.validationContext ?? 'body';
    const detail = issuesDetail(
      fastifyError.validation,
      (issue) => `${context}${issue.instancePath.replace(/\//g, '.')}: ${issue.message}`,
    );
    return TrellisError.of('validation_failed', { detail });
  }
  if (isResponseSerializationError(fastifyError)) {
    return TrellisError.of('internal_error', { requestId });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return TrellisError.of('malformed_json', { detail: 'check quoting, commas and brackets' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return TrellisError.of('missing_body');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return TrellisError.of('payload_too_large', { limit: bodyLimit ?? 'the configured' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return TrellisError.of('validation_failed', {
        detail: 'unsupported Content-Type; send application/json',
      });
    case 'FST_ERR_VALIDATION':
      return TrellisError.of('validation_failed', { detail: clip(fastifyError.message, MAX_ISSUE_LENGTH) });
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return TrellisError.of('malformed_json', { detail: clip(error.message, MAX_ISSUE_LENGTH) });
  }
  if (fastifyError.statusCode === 429) {
    return TrellisError.of('rate_limited', { retryAfter: '' });
  }
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return new TrellisError('validation_failed', clip(fastifyError.message, 1000));
  }
  return TrellisError.of('internal_error', { requestId });
}

/**
 * The one mapper to HTTP: every error is rendered as `{error, code, hint?}` with its status;
 * unknown errors are logged with their stack and answered as a 500 without it. Unknown
 * routes answer 404 JSON.
 */
export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error, request, reply) => {
      const trellisError = toTrellisError(error, request.id, request.routeOptions.bodyLimit);
      if (trellisError.status >= 500) {
        request.log.error({ err: error, code: trellisError.code }, 'request failed');
      } else {
        request.log.info({ code: trellisError.code, status: trellisError.status }, trellisError.message);
      }
      for (const [name, value] of Object.entries(trellisError.headers)) reply.header(name, value);
      reply.status(trellisError.status).type('application/json').send(JSON.stringify(trellisError.toBody()));
    });
    app.setNotFoundHandler((request, reply) => {
      const error = TrellisError.of('route_not_found', {
        method: request.method,
        url: request.url.split('?')[0] ?? '',
      });
      reply.status(404).type('application/json').send(JSON.stringify(error.toBody()));
    });
  },
  { name: 'trellis-errors' },
);
