import type { FastifyServerOptions } from 'fastify';

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
