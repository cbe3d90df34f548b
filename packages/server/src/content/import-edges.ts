import { batchRanges, EdgeTriple, type ImportEdgesResponse, perSecond } from '@trelliscms/core';
import type { Graph, GraphEdge } from '../engines/port';
import { errorMessage } from './error-message';

type EdgeError = ImportEdgesResponse['errors'][number];

const CONTENT_ID = /^[A-Za-z][A-Za-z0-9_-]*:[^\s:/?#][^\s/?#]*$/;
const EDGE_LABEL = /^[A-Z][A-Z0-9_]*$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The edge when `raw` is a well-formed `EdgeTriple` by plain checks (the same rules as core's
 * schema, or stricter: unknown members make it fall through), else null. Parsing each of
 * tens of thousands of edges with the schema costs more than merging it.
 */
function plainEdge(raw: unknown): GraphEdge | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { from, edge, to, props } = raw as Record<string, unknown>;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof edge !== 'string') return null;
  if (edge.length > 64 || !EDGE_LABEL.test(edge) || !CONTENT_ID.test(from) || !CONTENT_ID.test(to))
    return null;
  if (props !== undefined && !isPlainObject(props)) return null;
  if (!isPlainObject(raw) || Object.keys(raw).length > (props === undefined ? 3 : 4)) return null;
  return { from, type: edge, to, props: (props as Record<string, unknown> | undefined) ?? {} };
}

/** Reads one edge of the request; a malformed one (e.g. a lowercase label) fails alone. */
function readEdge(raw: unknown, index: number): { edge: GraphEdge } | { error: EdgeError } {
  const plain = plainEdge(raw);
  if (plain) return { edge: plain };
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
 * `<type>:<slug>`), each with an error naming its index. Each batch is one `mergeEdges` call;
 * one the engine refuses as a whole (e.g. an id longer than it stores) is retried in halves
 * down to single edges, so only the offending edge fails.
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
      const results = await tx.mergeEdges(batch.map(({ edge }) => edge));
      let batchMismatch = 0;
      for (const result of results) if (result === 'missing_endpoint') batchMismatch += 1;
      const batchMerged = results.length - batchMismatch;
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
  // A batch the engine refused as a whole (it wrote nothing) is retried as two halves, down to
  // single edges, whose failure is the edge's error.
  const runSplitting = async (batch: Array<{ index: number; edge: GraphEdge }>): Promise<void> => {
    try {
      await runBatch(batch);
    } catch (error) {
      if (batch.length === 1) {
        errors.push({ index: batch[0]!.index, error: errorMessage(error) });
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await runSplitting(batch.slice(0, half));
      await runSplitting(batch.slice(half));
    }
  };
  for (const [start, end] of ranges) {
    const batch: Array<{ index: number; edge: GraphEdge }> = [];
    for (let index = start; index < end; index += 1) {
      const read = readEdge(edges[index], index);
      if ('error' in read) errors.push(read.error);
      else batch.push({ index, edge: read.edge });
    }
    if (batch.length > 0) await runSplitting(batch);
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
