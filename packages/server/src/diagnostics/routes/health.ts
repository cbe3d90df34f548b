import { HealthResponse } from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** GET /api/health: always 200, no engine call. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness; makes no engine call',
        response: { 200: HealthResponse },
      },
      config: { siteScope: 'none', public: true },
    },
    async () => ({
      status: 'ok',
      platformGraph: app.trellis.platformGraphName,
      lastBuildAt: app.trellis.lastBuild?.at ?? null,
      lastBuildId: app.trellis.lastBuild?.id ?? null,
      instanceId: app.trellis.instanceId,
    }),
  );
};
