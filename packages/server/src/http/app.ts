import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { agentRoutes } from '../agent/routes/agent';
import { aiRoutes } from '../ai/routes/ai';
import { bugsRoutes } from '../bugs/routes/bugs';
import type { Config } from '../config';
import { embeddingsRoutes } from '../content/routes/embeddings';
import { importRoutes } from '../content/routes/import';
import { contentRoutes } from '../content/routes/items';
import { sdkFilesRoutes } from '../content/routes/sdk-files';
import { typesRoutes } from '../content/routes/types';
import { auditLogRoutes } from '../diagnostics/routes/audit-log';
import { diagnosticsRoutes } from '../diagnostics/routes/diagnostics';
import { healthRoutes } from '../diagnostics/routes/health';
import { createEngine } from '../engines';
import type { GraphEngine } from '../engines/port';
import { notificationRoutes } from '../events/routes/notifications';
import { webhookRoutes } from '../events/routes/webhooks';
import { leadsRoutes } from '../leads/routes/leads';
import { mediaRoutes } from '../media/routes/media';
import { accessRoutes } from '../platform/routes/access';
import { apiKeysRoutes } from '../platform/routes/api-keys';
import { invitationsRoutes } from '../platform/routes/invitations';
import { membersRoutes } from '../platform/routes/members';
import { sitesRoutes } from '../platform/routes/sites';
import { buildRoutes } from '../publishing/routes/build';
import { publishingRoutes } from '../releases/routes/publishing';
import { releasesRoutes } from '../releases/routes/releases';
import { scriptRoutes } from '../scripts/routes/scripts';
import { type Clock, systemClock } from '../shared/clock';
import { localeRoutes } from '../site-resources/routes/locales';
import { siteResourceRoutes } from '../site-resources/routes/site-resources';
import { templatesRoutes } from '../site-resources/routes/templates';
import { API_VERSION, VERSION } from '../version';
import { workflowRoutes } from '../workflows/routes/workflows';
import { loggerOptions, RequestLogController, requestChildLogger } from './logger';
import { authPlugin } from './plugins/auth';
import { bodyParsingPlugin } from './plugins/body-parsing';
import { conditionalRequestsPlugin } from './plugins/conditional-requests';
import { contextPlugin } from './plugins/context';
import { corsPlugin } from './plugins/cors';
import { errorsPlugin } from './plugins/errors';
import { eventsPlugin } from './plugins/events';
import { gracefulShutdownPlugin } from './plugins/graceful-shutdown';
import { idempotencyPlugin } from './plugins/idempotency';
import { loadSheddingPlugin } from './plugins/load-shedding';
import { openapiPlugin } from './plugins/openapi';
import { publishingPlugin } from './plugins/publishing';
import { queryTimeoutPlugin } from './plugins/query-timeout';
import { rateLimitPlugin } from './plugins/rate-limit';
import { releasesPlugin } from './plugins/releases';
import { scriptsPlugin } from './plugins/scripts';

/** The response header carrying the request's id (the `requestId` of its log lines). */
export const REQUEST_ID_HEADER = 'x-request-id';

export interface BuildAppOptions {
  config: Config;
  /** Defaults to the engine the config names. Tests pass one to share or inspect it. */
  engine?: GraphEngine;
  /** Defaults to the config's LOG_LEVEL; tests pass false. */
  logger?: boolean;
  /** Where log lines go (default stdout); tests pass a stream to read them. */
  logStream?: NodeJS.WritableStream;
  /** Where timestamps come from (default: the system clock); tests pass a fixed one. */
  clock?: Clock;
}

/**
 * Builds the Fastify app from plugins without listening, so tests drive it with
 * `app.inject()` and `main.ts` calls `listen()`.
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.LOG_LEVEL, options.logStream),
    // Binds requestId/siteId/envId to each request's logger; without a logger there is nothing to bind.
    ...(options.logger === false || config.LOG_LEVEL === 'silent'
      ? {}
      : { childLoggerFactory: requestChildLogger }),
    logController: new RequestLogController(config.CMS_REQUEST_LOG),
    genReqId: () => crypto.randomUUID(),
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY ? config.TRUST_PROXY.split(',').map((part) => part.trim()) : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Every answer names its request id: the `requestId` of the server's log lines for it, so a
  // user's report (POST /api/bugs `requestId`) can be matched with the log.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  await app.register(errorsPlugin);
  // Before every route: it sets the body limit of bulk routes as they are registered.
  await app.register(bodyParsingPlugin, { importBodyLimit: config.IMPORT_BODY_LIMIT_BYTES });
  // Before every other hook: while the server drains, new requests cost only their 503.
  await app.register(gracefulShutdownPlugin);
  // Before every route and hook: preflights are answered before rate limiting and auth.
  await app.register(corsPlugin, { origins: config.CMS_CORS_ORIGINS });
  await app.register(openapiPlugin, { version: API_VERSION });
  await app.register(contextPlugin, {
    config,
    engine: options.engine ?? createEngine(config),
    version: VERSION,
    clock: options.clock ?? systemClock,
  });
  await app.register(eventsPlugin);
  await app.register(loadSheddingPlugin, {
    maxEventLoopDelayMs: config.LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: config.LOAD_SHED_MAX_HEAP_USED_BYTES,
    maxRssBytes: config.LOAD_SHED_MAX_RSS_BYTES,
    sampleIntervalMs: config.LOAD_SHED_SAMPLE_INTERVAL_MS,
  });
  await app.register(rateLimitPlugin, {
    max: config.RATE_LIMIT_MAX,
    timeWindowMs: config.RATE_LIMIT_WINDOW_MS,
    maxAuthFailures: config.AUTH_FAILURE_MAX,
  });
  await app.register(authPlugin);
  await app.register(queryTimeoutPlugin, { timeoutMs: config.MAX_QUERY_TIMEOUT_MS });
  await app.register(conditionalRequestsPlugin);
  await app.register(idempotencyPlugin);
  await app.register(scriptsPlugin);

  await app.register(healthRoutes);
  await app.register(diagnosticsRoutes);
  await app.register(auditLogRoutes);
  await app.register(sitesRoutes);
  await app.register(accessRoutes);
  await app.register(invitationsRoutes);
  await app.register(membersRoutes);
  await app.register(apiKeysRoutes);
  await app.register(typesRoutes);
  await app.register(contentRoutes);
  await app.register(importRoutes);
  await app.register(embeddingsRoutes);
  await app.register(templatesRoutes);
  await app.register(siteResourceRoutes);
  await app.register(localeRoutes);
  await app.register(workflowRoutes);
  await app.register(scriptRoutes);
  await app.register(publishingPlugin);
  await app.register(buildRoutes);
  await app.register(releasesPlugin);
  await app.register(releasesRoutes);
  await app.register(publishingRoutes);
  await app.register(mediaRoutes);
  await app.register(webhookRoutes);
  await app.register(notificationRoutes);
  await app.register(aiRoutes);
  await app.register(agentRoutes);
  await app.register(leadsRoutes);
  await app.register(bugsRoutes);
  await app.register(sdkFilesRoutes);
  return app;
}
