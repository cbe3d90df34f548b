import {
  IMPORT_EDGES_BATCH,
  IMPORT_JSON_BATCH,
  IMPORT_MAX_EDGES,
  IMPORT_MAX_RECORDS,
  ImportEdgesResponse,
  ImportJsonBody,
  ImportJsonResponse,
  ImportTooLarge,
  RemoveEdgesResponse,
  TrellisError,
  tooManyAdvice,
} from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { type FastifyPluginAsyncZod, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../auth/actor';
import { errorResponses } from '../../http/error-responses';
import { bulkBodySource } from '../../http/plugins/body-parsing';
import { siteOf } from '../../http/site-of';
import { getEnvironment } from '../../releases/environments';
import { assertImportMayPublish } from '../../workflows/move-item';
import { importEdges } from '../import-edges';
import { importRecords } from '../import-records';
import { removeEdges } from '../remove-edges';
import { getTypeForWrite } from '../type-repository';
import { keepEmbedded } from './keep-embedded';

const errors = {
  ...errorResponses(400, 401, 403, 404),
  413: ImportTooLarge,
};

/**
 * The edge import body as the route reads it: each edge is checked on its own (a malformed
 * one, e.g. a lowercase label, fails alone with an error naming its index), so the array
 * takes any objects here; the documented shape of an edge is core's `EdgeTriple`.
 */
const edgeBatchSize = z
  .number()
  .int()
  .min(IMPORT_EDGES_BATCH.min)
  .max(IMPORT_EDGES_BATCH.max)
  .default(IMPORT_EDGES_BATCH.default);
const ImportEdgesRequest = z.object({
  edges: z.array(z.unknown()).describe('Array of EdgeTriple `{from, edge, to, props?}`'),
  batchSize: edgeBatchSize,
});
/** The edge removal body as the route reads it (each edge checked on its own; core's `RemoveEdgesBody`). */
const RemoveEdgesRequest = z.object({
  edges: z.array(z.unknown()).describe('Array of EdgeRef `{from, edge, to}`'),
  batchSize: edgeBatchSize,
});

/**
 * The 413 of a request with more than `max` items: calls of one valid batch each
 * (`maxBatchSize`, the endpoint's largest `batchSize`).
 */
function tooMany(count: number, max: number, what: string, maxBatchSize: number): TrellisError {
  const advice = tooManyAdvice({ count, max, maxBatchSize })!;
  return TrellisError.of(
    'too_many_records',
    { count, max, what, ...advice },
    {
      hint: `Send the ${what} in ${advice.suggestedCallCount} calls of at most ${advice.suggestedBatchSize}, each with batchSize ${advice.suggestedBatchSize}.`,
      extra: { ...advice, max },
    },
  );
}

/** What core's `JsonObject` (a record of string keys) accepts from parsed JSON: an object that is not a list. */
const isJsonObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The validator of POST /api/import/json: zod's record schema copies every record key by key
 * (about a sixth of the CPU time of importing small records). When `records` is a list of
 * objects, which is all `JsonObject` asks of an element, zod checks the rest of the body and
 * the records are taken as they came; anything else goes to zod whole, so the answers (400s
 * included) are the ones zod gives.
 */
const importJsonValidator: FastifySchemaCompiler<unknown> = (route) => {
  const full = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.schema !== ImportJsonBody) return full;
  return (data: unknown) => {
    const records = isJsonObject(data) ? (data as { records?: unknown }).records : undefined;
    if (Array.isArray(records) && records.every(isJsonObject)) {
      const rest = full({ ...(data as object), records: [] }) as { value?: object; error?: unknown };
      if (!rest.error && rest.value) return { value: { ...rest.value, records } };
    }
    return full(data);
  };
};

/**
 * The validator of the edge routes: zod's `z.array(z.unknown())` makes a copy of `edges`,
 * element by element (tens of thousands of them), to accept any element. When `edges` is a
 * list, zod checks the rest of the body and the list is taken as sent (each edge is checked
 * on its own by the import); anything else goes to zod whole, so the answers (400s included)
 * are the ones zod gives.
 */
const edgesBodyValidator: FastifySchemaCompiler<unknown> = (route) => {
  const full = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.schema !== ImportEdgesRequest && route.schema !== RemoveEdgesRequest) return full;
  return (data: unknown) => {
    const edges = isJsonObject(data) ? (data as { edges?: unknown }).edges : undefined;
    if (Array.isArray(edges)) {
      const rest = full({ ...(data as object), edges: [] }) as { value?: object; error?: unknown };
      if (!rest.error && rest.value) return { value: { ...rest.value, edges } };
    }
    return full(data);
  };
};

/**
 * Runs a bulk write of the request's site with the graph's audit anchoring held
 * (AuditAnchors.hold): its batches, each one transaction, raise the anchor once when it ends
 * (also when it fails), instead of one anchoring — a transaction of the platform graph — per batch.
 */
async function anchoredOnce<T>(
  app: FastifyInstance,
  request: FastifyRequest,
  write: () => Promise<T>,
): Promise<T> {
  const release = app.trellis.auditAnchors.hold(siteOf(request).graphName);
  try {
    return await write();
  } finally {
    release();
  }
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
        description: `Batches of \`batchSize\` records, each batch one transaction; a bad record fails alone (its batch writes its good records). Each record is counted once: \`created\` (a new item), \`updated\` (an existing item replaced by the record: a new version), \`unchanged\` (the existing item already holds the record's fields and given relationships: no version, no audit entry), \`skipped\` (it exists and \`skipExisting\`), or \`failed\` (in \`errors\`; an id repeated in one request fails every repeat after the first). A record whose item exists is never counted \`created\`. \`dryRun\` checks everything and writes nothing (the counters then say what would happen). With \`publish\` (an environment, e.g. \`prod\`), every created, updated and unchanged item is published there at the end, in one live revision (\`published\` says how many went live). At most ${IMPORT_MAX_RECORDS} records per request, else 413 with \`suggestedCallCount\` calls of \`suggestedBatchSize\` records (a valid \`batchSize\`, at most ${IMPORT_JSON_BATCH.max}).`,
        body: ImportJsonBody,
        response: { 200: ImportJsonResponse, ...errors },
      },
      validatorCompiler: importJsonValidator,
      config: { siteScope: 'site', permission: 'content:write', isBulkBody: true, keepsBodySource: true },
    },
    async (request) => {
      const body = request.body;
      if (body.records.length > IMPORT_MAX_RECORDS)
        throw tooMany(body.records.length, IMPORT_MAX_RECORDS, 'records', IMPORT_JSON_BATCH.max);
      const graph = siteOf(request).graph;
      const type = await getTypeForWrite(graph, body.typeName);
      const publishTo = body.publish ? await getEnvironment(graph, body.publish) : null;
      if (publishTo)
        await assertImportMayPublish({ reader: graph, typeName: type.name, role: siteOf(request).role });
      const result = await anchoredOnce(app, request, () =>
        importRecords({
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
          onWritten: (items) => keepEmbedded(app, request, type, ...items),
          source: bulkBodySource(request),
        }),
      );
      if (!body.dryRun) {
        app.events.bus.emit({
          type: 'import.finished',
          siteId: siteOf(request).id,
          data: {
            kind: 'records',
            typeName: type.name,
            ok: result.ok,
            totalRecords: result.totalRecords,
            created: result.created,
            updated: result.updated ?? 0,
            unchanged: result.unchanged ?? 0,
            skipped: result.skipped ?? 0,
            failed: result.failed,
            published: result.published ?? 0,
            publishedTo: publishTo?.id ?? null,
            tookMs: result.tookMs,
            actor: actorOf(request.principal!),
          },
        });
      }
      return result;
    },
  );

  app.post(
    '/api/import/edges',
    {
      schema: {
        tags: ['import'],
        summary: 'Import relationship edges between existing items',
        description: `Merge semantics: one edge per (from, edge, to), props replaced, so re-importing changes nothing. \`from\`/\`to\` are full ids \`<type>:<slug>\`; \`edge\` an uppercase identifier. Each edge must be a relationship of the source item's type (its \`edgeLabel\`, to an item of its \`target\` type), and a \`many-to-one\` or \`one-to-one\` relationship holds one target: an edge to a second target is refused (remove the first with POST /api/import/edges/remove). Refused and malformed edges fail alone, in \`errors\` with their index and why (counted in \`failed\`); \`mismatch\` counts edges whose endpoint does not exist (no-ops). At most ${IMPORT_MAX_EDGES} edges per request, else 413 with \`suggestedCallCount\` calls of \`suggestedBatchSize\` edges (a valid \`batchSize\`, at most ${IMPORT_EDGES_BATCH.max}).`,
        body: ImportEdgesRequest,
        response: { 200: ImportEdgesResponse, ...errors },
      },
      validatorCompiler: edgesBodyValidator,
      config: { siteScope: 'site', permission: 'content:write', isBulkBody: true },
    },
    async (request) => {
      const { edges, batchSize } = request.body;
      if (edges.length > IMPORT_MAX_EDGES)
        throw tooMany(edges.length, IMPORT_MAX_EDGES, 'edges', IMPORT_EDGES_BATCH.max);
      const result = await anchoredOnce(app, request, () =>
        importEdges({
          graph: siteOf(request).graph,
          edges,
          batchSize,
          actor: actorOf(request.principal!),
        }),
      );
      app.events.bus.emit({
        type: 'import.finished',
        siteId: siteOf(request).id,
        data: {
          kind: 'edges',
          ok: result.ok,
          totalEdges: result.totalEdges,
          merged: result.merged,
          mismatch: result.mismatch,
          failed: result.failed,
          actor: actorOf(request.principal!),
        },
      });
      return result;
    },
  );

  app.post(
    '/api/import/edges/remove',
    {
      schema: {
        tags: ['import'],
        summary: 'Remove relationship edges between items',
        description: `The counterpart of POST /api/import/edges: each \`{from, edge, to}\` (full ids, \`props\` ignored) is removed, in batches of \`batchSize\` (1 to ${IMPORT_EDGES_BATCH.max}), each batch one transaction with one audit entry (\`edges.remove\`) when it removed something. \`removed\` counts edges removed, \`missing\` those that did not exist (no-ops, so a removal can be repeated). Any edge between two content items can be removed, declared or not, except the only target of a \`required\` relationship; refused and malformed edges fail alone, in \`errors\` with their index (counted in \`failed\`). At most ${IMPORT_MAX_EDGES} edges per request, else 413.`,
        body: RemoveEdgesRequest,
        response: { 200: RemoveEdgesResponse, ...errors },
      },
      validatorCompiler: edgesBodyValidator,
      config: { siteScope: 'site', permission: 'content:write', isBulkBody: true },
    },
    async (request) => {
      const { edges, batchSize } = request.body;
      if (edges.length > IMPORT_MAX_EDGES)
        throw tooMany(edges.length, IMPORT_MAX_EDGES, 'edges', IMPORT_EDGES_BATCH.max);
      return anchoredOnce(app, request, () =>
        removeEdges({
          graph: siteOf(request).graph,
          edges,
          batchSize,
          actor: actorOf(request.principal!),
        }),
      );
    },
  );
};
