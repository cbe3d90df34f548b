import { batchRanges, type RemoveEdgesResponse } from '@trelliscms/core';
import type { Graph, GraphWriter } from '../engines/port';
import { cooperativeYield } from '../shared/cooperative-yield';
import { type EdgeError, type IndexedEdge, readEdge, runSplitting } from './edge-input';
import { createTypeLookup, type TypeLookup } from './edge-relationship';
import { errorMessage } from './error-message';
import { CONTENT_LABEL, typeOfId } from './item-record';

/** What one batch did, recorded once its transaction committed. */
interface BatchOutcome {
  errors: EdgeError[];
  removed: number;
  missing: number;
}

/**
 * Removes the edges of one batch that exist, in the caller's transaction. An edge that does
 * not exist is `missing` (a no-op); one whose ends are not both content items is refused (edges
 * of internal bookkeeping are not removed here), and so is one that would leave a `required`
 * relationship of its source item without a target (as an item update cannot clear it). One
 * audit entry when an edge was removed.
 */
async function removeBatch({
  tx,
  batch,
  types,
  actor,
  tick,
}: {
  tx: GraphWriter;
  batch: IndexedEdge[];
  types: TypeLookup;
  actor: string;
  tick: () => Promise<void> | undefined;
}): Promise<BatchOutcome> {
  const errors: EdgeError[] = [];
  const fail = (item: IndexedEdge, error: string) => errors.push({ index: item.index, error });
  let missing = 0;
  let removed = 0;
  const ids = [...new Set(batch.flatMap(({ edge }) => [edge.from, edge.to]))];
  const items = new Set(
    (await tx.getNodes(ids)).filter((node) => node.labels.includes(CONTENT_LABEL)).map((node) => node.id),
  );
  // What each required relationship still holds, per source item, as removals go.
  const remaining = new Map<string, Set<string>>();
  for (const item of batch) {
    await tick();
    const { from, type, to } = item.edge;
    if ((await tx.getEdges({ from, type, to })).length === 0) {
      missing += 1;
      continue;
    }
    if (!items.has(from) || !items.has(to)) {
      fail(item, `${from} → ${to}: only edges between content items can be removed here`);
      continue;
    }
    const source = await types(typeOfId(from));
    const required = source?.relationships.find(
      (relationship) =>
        relationship.required && relationship.edgeLabel === type && relationship.target === typeOfId(to),
    );
    if (required) {
      const key = `${from}\u0000${required.name}`;
      let targets = remaining.get(key);
      if (!targets) {
        const stored = await tx.getEdges({ from, type });
        targets = new Set(stored.filter((e) => typeOfId(e.to) === required.target).map((e) => e.to));
        remaining.set(key, targets);
      }
      if (targets.size <= 1) {
        fail(
          item,
          `\`${required.name}\` of ${from} is required and ${to} is its only target: point it elsewhere first`,
        );
        continue;
      }
      targets.delete(to);
    }
    await tx.deleteEdge({ from, type, to });
    removed += 1;
  }
  if (removed > 0) {
    await tx.appendAudit({ actor, action: 'edges.remove', target: 'edges', data: { removed } });
  }
  return { errors, removed, missing };
}

/**
 * Removes `edges` (`{from, edge, to}`, ends as full ids `<type>:<slug>`; `props` ignored) in
 * batches of `batchSize`, each batch one transaction with one audit entry when it removed
 * something. Removing an edge that does not exist changes nothing (`missing`), so a removal can
 * be repeated. Any edge between two content items can be removed, declared or not (e.g. a
 * second target a single-target relationship gained before imports checked it), except the last
 * target of a `required` relationship. Malformed and refused edges fail alone, in `errors`
 * with their index; a batch the engine refuses as a whole is retried in halves.
 */
export async function removeEdges({
  graph,
  edges,
  batchSize,
  actor,
}: {
  graph: Graph;
  edges: unknown[];
  batchSize: number;
  actor: string;
}): Promise<RemoveEdgesResponse> {
  const started = performance.now();
  const errors: EdgeError[] = [];
  const types = createTypeLookup(graph);
  let removed = 0;
  let missing = 0;
  const ranges = batchRanges({ count: edges.length, batchSize });
  // Checkpoints between edges, so other requests are answered meanwhile.
  const tick = cooperativeYield();
  const run = async (batch: IndexedEdge[]) => {
    const outcome = await graph.transaction((tx) => removeBatch({ tx, batch, types, actor, tick }));
    errors.push(...outcome.errors);
    removed += outcome.removed;
    missing += outcome.missing;
  };
  const fail = (item: IndexedEdge, error: unknown) =>
    errors.push({ index: item.index, error: errorMessage(error) });
  for (const [start, end] of ranges) {
    const batch: IndexedEdge[] = [];
    for (let index = start; index < end; index += 1) {
      await tick();
      const read = readEdge(edges[index], index);
      if ('error' in read) errors.push(read.error);
      else batch.push({ index, edge: read.edge });
    }
    if (batch.length > 0) await runSplitting(batch, run, fail);
  }
  errors.sort((a, b) => a.index - b.index);
  return {
    ok: errors.length === 0,
    totalEdges: edges.length,
    removed,
    missing,
    failed: errors.length,
    batches: ranges.length,
    tookMs: Math.round(performance.now() - started),
    errors,
  };
}
