import type { FastifyServerOptions } from 'fastify';

/**
 * Logger options: one JSON line per event with the fields of spec §6 — `ts`, `level`
 * (`info`/`warn`/`error`...), `component`, `msg`, `requestId`, and `siteId`/`envId` where a
 * request carries them. Credentials are redacted wherever they could appear.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
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
