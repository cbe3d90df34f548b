import { batchRanges, EdgeTriple, type ImportEdgesResponse, perSecond } from '@trelliscms/core';
import type { Graph, GraphEdge } from '../engines/port';
import { errorMessage } from './error-message';

type EdgeError = ImportEdgesResponse['errors'][number];

/** Reads one edge of the request; a malformed one (e.g. a lowercase label) fails alone. */
function readEdge(raw: unknown, index: number): { edge: GraphEdge } | { error: EdgeError } {
  const parsed = EdgeTriple.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || 'edge'}: ${issue.message}`)
      .join('; ');
    return { error: { index, error: detail } };
  }
  const { from, edge, to, props } = parsed.data;
  return { edge: { from, type: edge, to, props: props ?? {} } };
}

/**
 * Merges `edges` (`{from, edge, to, props?}`, ends as full ids `<type>:<slug>`) in batches of
 * `batchSize`, each batch one transaction with one audit entry. Merge semantics: one edge per
 * (from, label, to); props are replaced, so importing the same edges again changes nothing.
 * `merged` counts edges that exist after the call, `mismatch` those whose from or to node does
 * not exist (no-ops), `failed` malformed ones (label not an uppercase identifier, ids not
 * `<type>:<slug>`), each with an error naming its index.
 */
export async function importEdges({
  graph,
  edges,
  batchSize,
  actor,
}: {
  graph: Graph;
  edges: unknown[];
  batchSize: number;
  actor: string;
}): Promise<ImportEdgesResponse> {
  const started = performance.now();
  const errors: EdgeError[] = [];
  let merged = 0;
  let mismatch = 0;
  const ranges = batchRanges({ count: edges.length, batchSize });
  const runBatch = async (batch: Array<{ index: number; edge: GraphEdge }>) => {
    const counts = await graph.transaction(async (tx) => {
      let batchMerged = 0;
      let batchMismatch = 0;
      for (const { edge } of batch) {
        if ((await tx.mergeEdge(edge)) === 'missing_endpoint') batchMismatch += 1;
        else batchMerged += 1;
      }
      if (batchMerged > 0) {
        await tx.appendAudit({
          actor,
          action: 'edges.import',
          target: 'edges',
          data: { merged: batchMerged },
        });
      }
      return { batchMerged, batchMismatch };
    });
    merged += counts.batchMerged;
    mismatch += counts.batchMismatch;
  };
  for (const [start, end] of ranges) {
    const batch: Array<{ index: number; edge: GraphEdge }> = [];
    for (let index = start; index < end; index += 1) {
      const read = readEdge(edges[index], index);
      if ('error' in read) errors.push(read.error);
      else batch.push({ index, edge: read.edge });
    }
    if (batch.length === 0) continue;
    try {
      await runBatch(batch);
    } catch {
      for (const one of batch) {
        try {
          await runBatch([one]);
        } catch (error) {
          errors.push({ index: one.index, error: errorMessage(error) });
        }
      }
    }
  }
  errors.sort((a, b) => a.index - b.index);
  const ms = performance.now() - started;
  return {
    ok: errors.length === 0,
    totalEdges: edges.length,
    merged,
    mismatch,
    failed: errors.length,
    batches: ranges.length,
    tookMs: Math.round(ms),
    edgesPerSec: perSecond({ count: edges.length, ms }),
    errors,
  };
}
