import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config';
import { createEngine } from './engines';
import type { GraphEngine } from './engines/port';
import { loggerOptions, requestChildLogger } from './logger';
import { authPlugin } from './plugins/auth';
import { contextPlugin } from './plugins/context';
import { errorsPlugin } from './plugins/errors';
import { loadSheddingPlugin } from './plugins/load-shedding';
import { openapiPlugin } from './plugins/openapi';
import { publishingPlugin } from './plugins/publishing';
import { queryTimeoutPlugin } from './plugins/query-timeout';
import { rateLimitPlugin } from './plugins/rate-limit';
import { releasesPlugin } from './releases/releases-plugin';
import { accessRoutes } from './routes/access';
import { apiKeysRoutes } from './routes/api-keys';
import { buildRoutes } from './routes/build';
import { contentRoutes } from './routes/content';
import { diagnosticsRoutes } from './routes/diagnostics';
import { embeddingsRoutes } from './routes/embeddings';
import { healthRoutes } from './routes/health';
import { importRoutes } from './routes/import';
import { mediaRoutes } from './routes/media';
import { membersRoutes } from './routes/members';
import { releasesRoutes } from './routes/releases';
import { siteResourceRoutes } from './routes/site-resources';
import { sitesRoutes } from './routes/sites';
import { templatesRoutes } from './routes/templates';
import { typesRoutes } from './routes/types';
import { VERSION } from './version';

export interface BuildAppOptions {
  config: Config;
  /** Defaults to the engine the config names. Tests pass one to share or inspect it. */
  engine?: GraphEngine;
  /** Defaults to the config's LOG_LEVEL; tests pass false. */
  logger?: boolean;
  /** Where log lines go (default stdout); tests pass a stream to read them. */
  logStream?: NodeJS.WritableStream;
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
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: () => crypto.randomUUID(),
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY ? config.TRUST_PROXY.split(',').map((part) => part.trim()) : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(errorsPlugin);
  await app.register(openapiPlugin, { version: VERSION });
  await app.register(contextPlugin, {
    config,
    engine: options.engine ?? createEngine(config),
    version: VERSION,
  });
  await app.register(loadSheddingPlugin, {
    maxEventLoopDelayMs: config.LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: config.LOAD_SHED_MAX_HEAP_USED_BYTES,
    maxRssBytes: config.LOAD_SHED_MAX_RSS_BYTES,
    sampleIntervalMs: config.LOAD_SHED_SAMPLE_INTERVAL_MS,
  });
  await app.register(rateLimitPlugin, {
    max: config.RATE_LIMIT_MAX,
    timeWindowMs: config.RATE_LIMIT_WINDOW_MS,
  });
  await app.register(authPlugin);
  await app.register(queryTimeoutPlugin, { timeoutMs: config.MAX_QUERY_TIMEOUT_MS });

  await app.register(healthRoutes);
  await app.register(diagnosticsRoutes);
  await app.register(sitesRoutes);
  await app.register(accessRoutes);
  await app.register(membersRoutes);
  await app.register(apiKeysRoutes);
  await app.register(typesRoutes);
  await app.register(contentRoutes);
  await app.register(importRoutes);
  await app.register(embeddingsRoutes);
  await app.register(templatesRoutes);
  await app.register(siteResourceRoutes);
  await app.register(publishingPlugin);
  await app.register(buildRoutes);
  await app.register(releasesPlugin);
  await app.register(releasesRoutes);
  await app.register(mediaRoutes);
  return app;
}
