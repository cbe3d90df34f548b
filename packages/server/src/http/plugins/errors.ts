import { isTrellisError, TrellisError } from '@trelliscms/core';
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isEngineError } from '../../engines/port';
import { fromEngineError } from '../../shared/from-engine-error';

/** Turns anything thrown into a {@link TrellisError}; unknown errors become a hidden 500. */
export function toTrellisError(error: unknown, requestId: string): TrellisError {
  if (isTrellisError(error)) return error;
  if (isEngineError(error)) return fromEngineError(error);
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    const detail = fastifyError.validation
      .map((issue) => {
        const where = `${fastifyError.validationContext ?? 'body'}${issue.instancePath.replace(/\//g, '.')}`;
        return `${where}: ${issue.message}`;
      })
      .join('; ');
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
      return TrellisError.of('payload_too_large', { limit: 'the configured' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return TrellisError.of('validation_failed', {
        detail: 'unsupported Content-Type; send application/json',
      });
    case 'FST_ERR_VALIDATION':
      return TrellisError.of('validation_failed', { detail: fastifyError.message });
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return TrellisError.of('malformed_json', { detail: error.message });
  }
  if (fastifyError.statusCode === 429) {
    return TrellisError.of('rate_limited', { retryAfter: '' });
  }
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    return new TrellisError('validation_failed', fastifyError.message);
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
      const trellisError = toTrellisError(error, request.id);
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
