import {
  type EmbeddingsMaterializeResponse,
  embeddingText,
  type StoredContentType,
  TrellisError,
} from '@trelliscms/core';
import type { Graph } from '../../engines/port';
import { isEngineError } from '../../engines/port';
import { nodePages } from '../../shared/node-pages';
import { splitItemProps } from '../item-record';
import { embeddingSetId, markEmbedded } from './keep-embeddings';
import { type EmbeddingProvider, EmbeddingProviderError } from './provider';

/** Items embedded per provider call (and per write transaction). */
const CHUNK = 64;

/**
 * Computes and stores an embedding for every item of `type` that has none; items that have
 * one are untouched, so it is idempotent. The type is recorded as embedded: from then on each
 * write of one of its items embeds it again (keep-embeddings.ts). A provider failure is 502
 * `embedding_provider_failed`, an engine failure 502 `engine_error`, both with a hint and the
 * type and nodeLabel. Chunks already written stay written (re-running continues).
 */
export async function materializeEmbeddings({
  graph,
  type,
  provider,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  provider: EmbeddingProvider;
  actor: string;
}): Promise<EmbeddingsMaterializeResponse> {
  const started = performance.now();
  const extra = { type: type.name, nodeLabel: type.nodeLabel };
  let embedded = 0;
  let present = 0;
  let sample: string | null = null;
  try {
    const missing: Array<{ id: string; text: string }> = [];
    for await (const page of nodePages(graph, { label: type.nodeLabel })) {
      for (const node of page) {
        if (await graph.hasEmbedding(node.id)) {
          present += 1;
          sample ??= node.id;
        } else
          missing.push({
            id: node.id,
            text: embeddingText({ type, fields: splitItemProps(node.props).fields }),
          });
      }
    }
    for (let start = 0; start < missing.length; start += CHUNK) {
      const chunk = missing.slice(start, start + CHUNK);
      const vectors = await provider.embed(chunk.map((item) => item.text));
      await graph.transaction(async (tx) => {
        for (const [index, item] of chunk.entries()) await tx.setEmbedding(item.id, vectors[index]!);
        await tx.appendAudit({
          actor,
          action: 'embeddings.materialize',
          target: `type:${type.name}`,
          data: { count: chunk.length, provider: provider.name },
        });
      });
      embedded += chunk.length;
    }
    // from now on, every write of an item of the type embeds it again
    sample ??= missing[0]?.id ?? null;
    const dimensions = sample ? (await graph.getEmbeddings([sample])).get(sample)?.length : undefined;
    if (dimensions && (await graph.getNode(embeddingSetId(type.name))) === null) {
      await graph.transaction(async (tx) => {
        await markEmbedded(tx, { type: type.name, provider: provider.name, dimensions });
        await tx.appendAudit({
          actor,
          action: 'embeddings.keep',
          target: `type:${type.name}`,
          data: { provider: provider.name, dimensions },
        });
      });
    }
  } catch (error) {
    if (error instanceof EmbeddingProviderError) {
      throw TrellisError.of(
        'embedding_provider_failed',
        { detail: error.message },
        {
          hint: `Check EMBEDDINGS_URL, EMBEDDINGS_MODEL and EMBEDDINGS_API_KEY, or unset EMBEDDINGS_URL to use the offline hashed-bow provider. ${embedded} item(s) were embedded before the failure; re-run to continue.`,
          extra,
        },
      );
    }
    const detail = isEngineError(error) ? error.message : 'the engine rejected the embeddings';
    throw TrellisError.of(
      'engine_error',
      { detail },
      {
        hint: 'All embeddings of a graph must have one dimension: if the provider changed, use the previous one. GET /api/health/detail shows the engine state.',
        extra,
      },
    );
  }
  return {
    ok: true,
    type: type.name,
    nodeLabel: type.nodeLabel,
    durationMs: Math.round(performance.now() - started),
    note:
      embedded === 0
        ? `All ${present} item(s) already had an embedding; nothing to do.`
        : `Embedded ${embedded} item(s) with ${provider.name}; ${present} already had one.`,
    embedded,
  };
}
