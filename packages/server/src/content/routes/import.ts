import {
  IMPORT_EDGES_BATCH,
  IMPORT_MAX_EDGES,
  IMPORT_MAX_RECORDS,
  ImportEdgesResponse,
  ImportJsonBody,
  ImportJsonResponse,
  ImportTooLarge,
  TrellisError,
  tooManyAdvice,
} from '@trelliscms/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { siteOf } from '../../http/site-of';
import { getEnvironment } from '../../releases/environments';
import { importEdges } from '../import-edges';
import { importRecords } from '../import-records';
import { getTypeForWrite } from '../type-repository';

const errors = {
  ...errorResponses(400, 401, 403, 404),
  413: ImportTooLarge,
};

/**
 * The edge import body as the route reads it: each edge is checked on its own (a malformed
 * one, e.g. a lowercase label, fails alone with an error naming its index), so the array
 * takes any objects here; the documented shape of an edge is core's `EdgeTriple`.
 */
const ImportEdgesRequest = z.object({
  edges: z.array(z.unknown()).describe('Array of EdgeTriple `{from, edge, to, props?}`'),
  batchSize: z
    .number()
    .int()
    .min(IMPORT_EDGES_BATCH.min)
    .max(IMPORT_EDGES_BATCH.max)
    .default(IMPORT_EDGES_BATCH.default),
});

function tooMany(count: number, max: number, what: string): TrellisError {
  const advice = tooManyAdvice({ count, max })!;
  return TrellisError.of(
    'too_many_records',
    { count, max, suggestedBatchSize: advice.suggestedBatchSize },
    {
      hint: `Send the ${what} in ${advice.suggestedCallCount} calls of at most ${advice.suggestedBatchSize}.`,
      extra: { ...advice, max },
    },
  );
}

/** Spec §4 Bulk import (site-scoped): records of one type, and relationship edges. */
export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.trellis;

  app.post(
    '/api/import/json',
    {
      schema: {
        tags: ['import'],
        summary: 'Import records of one content type',
        description: `Batches of \`batchSize\` records, each batch one transaction; a bad record fails alone (its batch writes its good records). Existing items are replaced unless \`skipExisting\`; \`dryRun\` checks everything and writes nothing (\`created\` then counts what would be written). With \`publish\` (an environment, e.g. \`prod\`), every item the import wrote is published there at the end, in one live revision (\`published\` says how many). At most ${IMPORT_MAX_RECORDS} records per request, else 413 with \`suggestedBatchSize\` (records per call) and \`suggestedCallCount\`.`,
        body: ImportJsonBody,
        response: { 200: ImportJsonResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request) => {
      const body = request.body;
      if (body.records.length > IMPORT_MAX_RECORDS)
        throw tooMany(body.records.length, IMPORT_MAX_RECORDS, 'records');
      const graph = siteOf(request).graph;
      const type = await getTypeForWrite(graph, body.typeName);
      const publishTo = body.publish ? await getEnvironment(graph, body.publish) : null;
      return importRecords({
        publishTo,
        now: app.releases.now(),
        graph,
        type,
        records: body.records,
        batchSize: body.batchSize,
        skipExisting: body.skipExisting,
        dryRun: body.dryRun,
        actor: actorOf(request.principal!),
        estimatedRecordsPerSec: config.IMPORT_ESTIMATED_RECORDS_PER_SEC,
      });
    },
  );

  app.post(
    '/api/import/edges',
    {
      schema: {
        tags: ['import'],
        summary: 'Import relationship edges between existing items',
        description: `Merge semantics: one edge per (from, edge, to), props replaced, so re-importing changes nothing. \`from\`/\`to\` are full ids \`<type>:<slug>\`; \`edge\` an uppercase identifier. \`mismatch\` counts edges whose endpoint does not exist (no-ops); malformed edges fail alone. At most ${IMPORT_MAX_EDGES} edges per request, else 413.`,
        body: ImportEdgesRequest,
        response: { 200: ImportEdgesResponse, ...errors },
      },
      config: { siteScope: 'site', permission: 'content:write' },
    },
    async (request) => {
      const { edges, batchSize } = request.body;
      if (edges.length > IMPORT_MAX_EDGES) throw tooMany(edges.length, IMPORT_MAX_EDGES, 'edges');
      return importEdges({
        graph: siteOf(request).graph,
        edges,
        batchSize,
        actor: actorOf(request.principal!),
      });
    },
  );
};
