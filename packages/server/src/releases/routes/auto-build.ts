import type { Environment } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../auth/actor';
import { siteOf, siteViewOf } from '../../http/site-of';
import { envName } from '../../publishing/build-service';

/**
 * After a publish or unpublish changed an environment's live state: when the environment has
 * `autoBuild`, starts an async incremental build of it so the change goes live without a
 * separate `POST /api/build` (failures to start are logged, not answered).
 */
export async function autoBuild(
  app: FastifyInstance,
  request: FastifyRequest,
  environment: Environment,
): Promise<void> {
  if (!environment.autoBuild) return;
  try {
    const started = await app.builds.start({
      site: await siteViewOf(app, request),
      graph: siteOf(request).graph,
      env: envName(environment.id),
      mode: 'incremental',
      actor: actorOf(request.principal!),
      serveCheckUrl: null,
    });
    request.log.info({ envId: environment.id, buildId: started.buildId }, 'autoBuild started');
  } catch (error) {
    request.log.error({ err: error, envId: environment.id }, 'autoBuild could not start');
  }
}
