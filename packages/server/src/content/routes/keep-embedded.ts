import type { ContentRecord, StoredContentType } from '@trelliscms/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../auth/actor';
import { siteOf } from '../../http/site-of';
import { isQueryTimeout } from '../../shared/deadline-graph';
import { refreshEmbeddings } from '../embeddings/keep-embeddings';

/**
 * After an item write: embeds the written items again when their type is embedded (or they
 * had an embedding), so similar items and vector search follow the text. A provider failure
 * does not fail the write (it is logged; the stale embeddings are dropped), nor does any other
 * failure of this step but the request's query timeout.
 */
export async function keepEmbedded(
  app: FastifyInstance,
  request: FastifyRequest,
  type: StoredContentType,
  ...records: Array<Pick<ContentRecord, 'id' | 'fields'> & { isNew?: boolean }>
): Promise<void> {
  let outcome: { error: string | null };
  try {
    outcome = await refreshEmbeddings({
      graph: siteOf(request).graph,
      type,
      items: records.map((record) => ({ id: record.id, fields: record.fields, isNew: record.isNew })),
      provider: app.trellis.embeddings,
      actor: actorOf(request.principal!),
    });
  } catch (error) {
    // the request's query budget is spent: the caller answers 504
    if (isQueryTimeout(error)) throw error;
    // the write has happened: it is not undone, nor retried, for its embeddings
    outcome = { error: error instanceof Error ? error.message : String(error) };
  }
  if (outcome.error !== null) {
    request.log.warn(
      { type: type.name, ids: records.map((record) => record.id), error: outcome.error },
      'could not embed written items again; run materialize for the type',
    );
  }
}
