import { EdgeTriple } from '@trelliscms/core';
import type { GraphEdge } from '../engines/port';
import { isQueryTimeout } from '../shared/deadline-graph';

/** An edge of an edge request, with its index in the request. */
export interface IndexedEdge {
  index: number;
  edge: GraphEdge;
}

/** The error row of an edge of an edge request. */
export interface EdgeError {
  index: number;
  error: string;
}

const CONTENT_ID = /^[A-Za-z][A-Za-z0-9_-]*:[^\s:/?#][^\s/?#]*$/;
/** The longest node id the engines store (engines/shared/identifiers.ts). */
const MAX_ID_LENGTH = 512;
const EDGE_LABEL = /^[A-Z][A-Z0-9_]*$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The edge when `raw` is a well-formed `EdgeTriple` by plain checks (the same rules as core's
 * schema, or stricter: unknown members make it fall through), else null. Parsing each of
 * tens of thousands of edges with the schema costs more than merging it.
 */
export function plainEdge(raw: unknown): GraphEdge | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { from, edge, to, props } = raw as Record<string, unknown>;
  if (typeof from !== 'string' || typeof to !== 'string' || typeof edge !== 'string') return null;
  if (edge.length > 64 || !EDGE_LABEL.test(edge) || !CONTENT_ID.test(from) || !CONTENT_ID.test(to))
    return null;
  if (from.length > MAX_ID_LENGTH || to.length > MAX_ID_LENGTH) return null;
  if (props !== undefined && !isPlainObject(props)) return null;
  if (!isPlainObject(raw)) return null;
  // No member but these (counted without the key list Object.keys would make per edge).
  let members = 0;
  for (const _ in raw) members += 1;
  if (members > (props === undefined ? 3 : 4)) return null;
  return { from, type: edge, to, props: (props as Record<string, unknown> | undefined) ?? {} };
}

/**
 * Reads one edge `{from, edge, to, props?}` of a request; a malformed one (e.g. a lowercase
 * label, an id that is not `<type>:<slug>` or longer than any stored id) is an error naming
 * its index, so it fails alone.
 */
export function readEdge(raw: unknown, index: number): { edge: GraphEdge } | { error: EdgeError } {
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
  const tooLong = (['from', 'to'] as const).filter((end) => parsed.data[end].length > MAX_ID_LENGTH);
  if (tooLong.length > 0) {
    return {
      error: {
        index,
        error: tooLong.map((end) => `${end}: an item id has at most ${MAX_ID_LENGTH} characters`).join('; '),
      },
    };
  }
  return { edge: { from, type: edge, to, props: props ?? {} } };
}

/**
 * Runs `run` on `batch`; when it throws (so, in a transaction, wrote nothing), runs it again on
 * two halves, down to single edges, whose failure is the edge's error (`fail`): one bad edge of
 * n costs about 2·log2(n) transactions instead of n. A query timeout (the request's budget is
 * spent) is no edge's fault: it is thrown on (504).
 */
export async function runSplitting(
  batch: IndexedEdge[],
  run: (batch: IndexedEdge[]) => Promise<void>,
  fail: (edge: IndexedEdge, error: unknown) => void,
): Promise<void> {
  try {
    await run(batch);
  } catch (error) {
    if (isQueryTimeout(error)) throw error;
    if (batch.length === 1) {
      fail(batch[0]!, error);
      return;
    }
    const half = Math.ceil(batch.length / 2);
    await runSplitting(batch.slice(0, half), run, fail);
    await runSplitting(batch.slice(half), run, fail);
  }
}
