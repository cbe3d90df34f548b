import { RunQueryBody, RunQueryResponse, SavedQueryParams } from '@trelliscms/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { QUERIES } from '../resource-specs';
import { runSavedQuery } from '../saved-queries';

const errors = errorResponses(400, 401, 403, 404, 504);

/** Registers `POST /api/queries/{name}/run`. */
export function registerSavedQueryRun(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/queries/:name/run',
    {
      schema: {
        tags: ['queries'],
        summary: 'Run a saved query',
        description:
          'Runs the saved query with the parameters of the body (`params`, checked against the declared types: 400 `invalid_query_params`), over every item of the site. `limit` and `offset` replace the query’s. `items` are rows (`id`, `type` and the selected values), `total` counts every match. Bounded by MAX_QUERY_TIMEOUT_MS: 504 `query_timeout` when it runs longer. docs/queries.md describes the language.',
        params: SavedQueryParams,
        body: RunQueryBody.optional().nullable(),
        response: { 200: RunQueryResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:read' },
    },
    async (request) =>
      runSavedQuery({
        graph: siteOf(request).graph,
        spec: QUERIES,
        name: request.params.name,
        body: request.body ?? {},
      }),
  );
}
