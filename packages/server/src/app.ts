import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config';
import { createEngine } from './engines';
import type { GraphEngine } from './engines/port';
import { loggerOptions } from './logger';
import { contextPlugin } from './plugins/context';
import { errorsPlugin } from './plugins/errors';
import { openapiPlugin } from './plugins/openapi';
import { healthRoutes } from './routes/health';
import { VERSION } from './version';

export interface BuildAppOptions {
  config: Config;
  /** Defaults to the engine the config names. Tests pass one to share or inspect it. */
  engine?: GraphEngine;
  /** Defaults to the config's LOG_LEVEL; tests pass false. */
  logger?: boolean;
}

/**
 * Builds the Fastify app from plugins without listening, so tests drive it with
 * `app.inject()` and `main.ts` calls `listen()`.
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(config.LOG_LEVEL),
    requestIdLogLabel: 'requestId',
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

  await app.register(healthRoutes);
  return app;
}
