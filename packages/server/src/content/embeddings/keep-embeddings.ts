import { embeddingText, type StoredContentType } from '@trelliscms/core';
import type { Graph, GraphReader, GraphWriter } from '../../engines/port';
import { internalNodeId } from '../../shared/internal-ids';
import { allNodes } from '../../shared/node-pages';
import type { EmbeddingProvider } from './provider';

/** The label of the node recording that a type's items are embedded (and kept embedded). */
export const EMBEDDING_SET_LABEL = 'EmbeddingSet';

/** How a type's embeddings are made: the provider and the dimension of its vectors. */
export interface EmbeddingSet {
  type: string;
  provider: string;
  dimensions: number;
}

/** The node id of a type's embedding set: `~embeddings:<type>`. */
export function embeddingSetId(typeName: string): string {
  return internalNodeId('embeddings', typeName);
}

/**
 * Records that `type`'s items are embedded with `provider`: from then on every write of an item
 * of the type embeds it again ({@link refreshEmbeddings}), and builds read the embeddings.
 */
export async function markEmbedded(tx: GraphWriter, set: EmbeddingSet): Promise<void> {
  await tx.putNode({ id: embeddingSetId(set.type), labels: [EMBEDDING_SET_LABEL], props: { ...set } });
}

/** The embedding sets of a graph, by type name. */
export async function embeddingSets(graph: GraphReader): Promise<Map<string, EmbeddingSet>> {
  const out = new Map<string, EmbeddingSet>();
  for (const node of await allNodes(graph, { label: EMBEDDING_SET_LABEL })) {
    const { type, provider, dimensions } = node.props;
    if (typeof type === 'string' && typeof provider === 'string' && typeof dimensions === 'number')
      out.set(type, { type, provider, dimensions });
  }
  return out;
}

/**
 * Embeds written items again from their current text, so `{% similar %}` and the vector search
 * index never rank by text an item no longer has. Applies to items of a type that was
 * materialized (POST /maintenance/embeddings/materialize), and to any item that has an
 * embedding already. When the provider fails, the items' old embeddings are removed (a later
 * materialize embeds them) and the failure is returned for the caller to log: the write itself
 * has succeeded.
 */
export async function refreshEmbeddings({
  graph,
  type,
  items,
  provider,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  /** `isNew`: the item was created by the write, so it has no embedding yet (none is read for it). */
  items: ReadonlyArray<{ id: string; fields: Record<string, unknown>; isNew?: boolean }>;
  provider: EmbeddingProvider;
  actor: string;
}): Promise<{ refreshed: number; error: string | null }> {
  if (items.length === 0) return { refreshed: 0, error: null };
  const isMarked = (await graph.getNode(embeddingSetId(type.name))) !== null;
  const due = isMarked
    ? [...items]
    : await (async () => {
        const old = items.filter((item) => !item.isNew);
        if (old.length === 0) return [];
        const held = await graph.getEmbeddings(old.map((item) => item.id));
        return old.filter((item) => held.has(item.id));
      })();
  if (due.length === 0) return { refreshed: 0, error: null };
  let vectors: number[][];
  try {
    vectors = await provider.embed(due.map((item) => embeddingText({ type, fields: item.fields })));
  } catch (error) {
    await graph.transaction(async (tx) => {
      for (const item of due) await tx.deleteEmbedding(item.id);
      await tx.appendAudit({
        actor,
        action: 'embeddings.drop',
        target: `type:${type.name}`,
        data: { ids: due.slice(0, 50).map((item) => item.id), count: due.length, provider: provider.name },
      });
    });
    return { refreshed: 0, error: error instanceof Error ? error.message : String(error) };
  }
  await graph.transaction(async (tx) => {
    for (const [index, item] of due.entries()) {
      // an item deleted meanwhile has nothing to embed
      if (await tx.getNode(item.id)) await tx.setEmbedding(item.id, vectors[index]!);
    }
    await tx.appendAudit({
      actor,
      action: 'embeddings.refresh',
      target: `type:${type.name}`,
      data: { ids: due.slice(0, 50).map((item) => item.id), count: due.length, provider: provider.name },
    });
  });
  return { refreshed: due.length, error: null };
}
