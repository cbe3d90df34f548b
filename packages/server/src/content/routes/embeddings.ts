import {
  EmbeddingsMaterializeFailure,
  EmbeddingsMaterializeResponse,
  TrellisError,
  TypeName,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { materializeEmbeddings } from '../embeddings/materialize';
import type { EmbeddingProvider } from '../embeddings/provider';
import { getType } from '../type-repository';

/** `type` is optional in the schema so that its absence is the spec's 400 `missing_parameter`. */
const MaterializeQuery = z.object({ type: TypeName.optional() });

/**
 * POST /api/maintenance/embeddings/materialize?type=: embeds every item of the type that has
 * no embedding yet, with the configured provider (`hashed-bow` offline by default, or an
 * OpenAI-compatible endpoint from EMBEDDINGS_URL). `provider` overrides it (tests).
 */
export const embeddingsRoutes: FastifyPluginAsyncZod<{ provider?: EmbeddingProvider }> = async (
  app,
  opts,
) => {
  const provider = opts.provider ?? app.trellis.embeddings;

  app.post(
    '/api/maintenance/embeddings/materialize',
    {
      schema: {
        tags: ['maintenance'],
        summary: 'Compute embeddings for the items of a type that lack one',
        description: `Idempotent: items that have an embedding are untouched. Provider: ${provider.name}. From then on the type's items are embedded again whenever they are written (create, update, import), and builds read the embeddings for \`{% similar %}\` and the \`bm25+vector\` search index (docs/search.md).`,
        querystring: MaterializeQuery,
        response: {
          200: EmbeddingsMaterializeResponse,
          ...errorResponses(400, 401, 403, 404),
          502: EmbeddingsMaterializeFailure,
        },
      },
      config: { siteScope: 'site', permission: 'maintenance:run' },
    },
    async (request) => {
      const name = request.query.type;
      if (name === undefined) throw TrellisError.of('missing_parameter', { name: 'type' });
      const graph = siteOf(request).graph;
      const type = await getType(graph, name);
      return materializeEmbeddings({ graph, type, provider, actor: actorOf(request.principal!) });
    },
  );
};
