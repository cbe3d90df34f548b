import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

/**
 * Logger options: one JSON line per event with the fields of docs/api-spec.md §6 — `ts`, `level`
 * (`info`/`warn`/`error`...), `component`, `msg`, `requestId`, and `siteId`/`envId` where a
 * request carries them. Credentials are redacted wherever they could appear.
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    stream,
    base: { component: 'server' },
    messageKey: 'msg',
    timestamp: () => `,"ts":"${new Date().toISOString()}"`,
    formatters: {
      level: (label: string) => ({ level: label }),
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'authorization',
        'secret',
        'apiKey',
        'password',
        '*.secret',
        '*.password',
        'token',
        '*.token',
        '*.authorization',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
        method: req.method,
        url: req.url.replace(/([?&](?:key|token|secret)=)[^&]*/gi, '$1[redacted]'),
        siteId: req.headers['x-site-id'],
      }),
    },
  };
}

const SITE_ID_SHAPE = /^site:[a-z0-9][a-z0-9-]{0,119}$/;
const ENV_PARAM = /[?&](?:env|envId)=([A-Za-z0-9:_-]{1,100})(?:&|$)/;

/**
 * Fastify's `childLoggerFactory`: every line a request logs carries `requestId`, `siteId`
 * (the `X-Site-Id` it names, when well-formed) and `envId` (its `env`/`envId` query
 * parameter), null when absent, as docs/api-spec.md §6 asks.
 */
export const requestChildLogger: ChildLoggerFactory = function requestChildLogger(
  logger,
  bindings,
  options,
  rawRequest,
) {
  const siteHeader = rawRequest.headers['x-site-id'];
  const siteId = typeof siteHeader === 'string' && SITE_ID_SHAPE.test(siteHeader) ? siteHeader : null;
  const env = ENV_PARAM.exec(rawRequest.url ?? '');
  const envId = env?.[1] ? (env[1].startsWith('env:') ? env[1] : `env:${env[1]}`) : null;
  return logger.child({ ...bindings, siteId, envId }, options);
};

/** `CMS_REQUEST_LOG`: which requests get their per-request log lines. */
export type RequestLogMode = 'all' | 'errors' | 'off';

/**
 * Fastify's per-request log lines, turned down by `CMS_REQUEST_LOG` without losing errors:
 * `all` logs every request as it comes in and as it completes (info); `errors` logs only
 * requests answered 400 or above (4xx at info, 5xx at error); `off` logs only those answered 500
 * or above, or that failed while being answered. Lines of the error handler and of the server's
 * own work are not request lines: `LOG_LEVEL` governs them.
 */
export class RequestLogController extends LogController {
  constructor(private readonly mode: RequestLogMode) {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (this.mode === 'all') super.incomingRequest(request, reply, metadata);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    const status = reply.statusCode;
    const wanted =
      this.mode === 'all' || error != null || status >= 500 || (this.mode === 'errors' && status >= 400);
    if (!wanted) return;
    if (error == null && status >= 500) {
      reply.log.error({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
      return;
    }
    super.requestCompleted(error, request, reply, metadata);
  }

  override routeNotFound(
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (this.mode !== 'off') super.routeNotFound(request, reply, metadata);
  }
}
