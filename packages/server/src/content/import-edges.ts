import {
  batchRanges,
  type ImportEdgesResponse,
  isSingleTarget,
  perSecond,
  type RelationshipDefinition,
  type StoredContentType,
} from '@trelliscms/core';
import type { Graph, GraphEdge, GraphWriter } from '../engines/port';
import { cooperativeYield } from '../shared/cooperative-yield';
import { type EdgeError, type IndexedEdge, plainEdge, readEdge, runSplitting } from './edge-input';
import { createTypeLookup, relationshipInType } from './edge-relationship';
import { errorMessage } from './error-message';
import { typeOfId } from './item-record';

/** A relationship an edge was found to be, and its source item's type. */
interface DeclaredRelationship {
  relationship: RelationshipDefinition;
  source: StoredContentType;
}

/**
 * Edges merged per engine call, with a {@link cooperativeYield} checkpoint between calls: the
 * engine's largest row statement (500 rows, one statement per call for the usual new edges of
 * one type), a few ms of SQL.
 */
const MERGE_CHUNK = 500;

/**
 * The per-edge loops look at the {@link cooperativeYield} clock once every this many edges:
 * reading the clock (`performance.now()`, about 0.1 µs) cost about as much as checking an
 * edge, three times per edge; 64 edges take a few µs, so the loop still yields about every
 * slice.
 */
const TICK_EVERY = 64;

/** What one batch did, recorded once its transaction committed. */
interface BatchOutcome {
  errors: EdgeError[];
  merged: number;
  mismatch: number;
}

/**
 * Checks one batch against the store and merges the edges that pass, in the caller's
 * transaction: a single-target relationship (`many-to-one`, `one-to-one`) may hold only one
 * target, so an edge to another target than the one stored (or accepted earlier in the batch)
 * is refused. An edge whose end does not exist is `mismatch` (a no-op). One audit entry when an
 * edge was created or its props changed.
 */
async function mergeBatch({
  tx,
  batch,
  declaredAs,
  actor,
  tick,
}: {
  tx: GraphWriter;
  /** Edges that are declared relationships of their source item's type, */
  batch: IndexedEdge[];
  /** and the relationship each one is (same index). */
  declaredAs: RelationshipDefinition[];
  actor: string;
  tick: () => Promise<void> | undefined;
}): Promise<BatchOutcome> {
  const errors: EdgeError[] = [];
  const fail = (item: IndexedEdge, error: string) => errors.push({ index: item.index, error });
  let mismatch = 0;
  // The targets each single-target relationship holds: stored, and accepted in this batch.
  const held = new Map<string, { stored: Set<string>; added: Set<string> }>();
  const accepted: IndexedEdge[] = [];
  for (let at = 0; at < batch.length; at += 1) {
    if (at % TICK_EVERY === 0) {
      const pause = tick();
      if (pause) await pause;
    }
    const item = batch[at]!;
    const edge = item.edge;
    const relationship = declaredAs[at]!;
    if (!isSingleTarget(relationship.kind)) {
      accepted.push(item);
      continue;
    }
    const key = `${edge.from}\u0000${relationship.name}`;
    let targets = held.get(key);
    if (!targets) {
      const stored = await tx.getEdges({ from: edge.from, type: edge.type });
      targets = {
        stored: new Set(stored.filter((e) => typeOfId(e.to) === relationship.target).map((e) => e.to)),
        added: new Set(),
      };
      held.set(key, targets);
    }
    const holding = await otherTargets(tx, edge, targets);
    if (holding.length > 0) {
      fail(
        item,
        `${edge.from} already has ${edge.type} → ${holding.join(', ')}, and \`${relationship.name}\` is ${relationship.kind} (one target): remove that edge first (POST /api/import/edges/remove)`,
      );
      continue;
    }
    targets.added.add(edge.to);
    accepted.push(item);
  }
  if (accepted.length === 0) return { errors, merged: 0, mismatch };
  const results: Awaited<ReturnType<GraphWriter['mergeEdges']>> = [];
  for (let at = 0; at < accepted.length; at += MERGE_CHUNK) {
    await tick();
    const chunk: GraphEdge[] = new Array(Math.min(MERGE_CHUNK, accepted.length - at));
    for (let i = 0; i < chunk.length; i += 1) chunk[i] = accepted[at + i]!.edge;
    results.push(...(await tx.mergeEdges(chunk)));
  }
  let merged = 0;
  let changed = 0;
  for (const result of results) {
    if (result === 'missing_endpoint') mismatch += 1;
    else merged += 1;
    if (result === 'created' || result === 'updated') changed += 1;
  }
  if (changed > 0) {
    await tx.appendAudit({ actor, action: 'edges.import', target: 'edges', data: { merged, changed } });
  }
  return { errors, merged, mismatch };
}

/**
 * The targets other than `edge.to` that a single-target relationship of `edge.from` already
 * holds: stored ones, or ones accepted earlier in the batch that will land (their item exists,
 * read only on this rare path). Empty when the edge may be merged (also when `edge.from` does
 * not exist: the merge then counts it as a mismatch).
 */
async function otherTargets(
  tx: GraphWriter,
  edge: GraphEdge,
  targets: { stored: Set<string>; added: Set<string> },
): Promise<string[]> {
  if (targets.stored.has(edge.to) || targets.added.has(edge.to)) return [];
  if (targets.stored.size > 0) return [...targets.stored].sort();
  if (targets.added.size === 0) return [];
  const found = new Set((await tx.getNodes([edge.from, ...targets.added])).map((node) => node.id));
  if (!found.has(edge.from)) return [];
  for (const id of targets.added) if (!found.has(id)) targets.added.delete(id);
  return [...targets.added].sort();
}

/**
 * Merges `edges` (`{from, edge, to, props?}`, ends as full ids `<type>:<slug>`) in batches of
 * `batchSize`, each batch one transaction. Merge semantics: one edge per (from, label, to);
 * props are replaced, so importing the same edges again changes nothing (and writes no audit
 * entry; a batch that changed something writes one).
 *
 * Each edge must be a relationship its source item's type declares: its label one of the
 * type's `edgeLabel`s, its `to` an item of that relationship's `target` type; a single-target
 * relationship (`many-to-one`, `one-to-one`) holds one target, so an edge to a second target
 * is refused (remove the first with `removeEdges`, remove-edges.ts; the same edge again only replaces its
 * props). Only the source side is bounded, as on item writes.
 *
 * `merged` counts edges that exist after the call, `mismatch` those whose from or to item
 * does not exist (no-ops), `failed` the refused ones: malformed (label not an uppercase
 * identifier, ids not `<type>:<slug>`) or breaking the rules above, each in `errors` with its
 * index and why. A batch the engine refuses as a whole (e.g. an id longer than it stores) is
 * retried in halves down to single edges, so only the offending edge fails.
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
  const types = createTypeLookup(graph);
  let merged = 0;
  let mismatch = 0;
  const ranges = batchRanges({ count: edges.length, batchSize });
  // Checkpoints between edges and engine calls, so other requests are answered meanwhile.
  const tick = cooperativeYield();
  // The source types read so far, so the common edge needs no await (a microtask each).
  const sources = new Map<string, StoredContentType | null>();
  // The relationship each (source type, label, target type) was found to be, so the common
  // edge is looked up in maps instead of the type's relationship list (failures are not kept:
  // their message names the edge).
  const declaredAs = new Map<string, Map<string, Map<string, DeclaredRelationship>>>();
  const run = async (batch: IndexedEdge[]) => {
    const declared: IndexedEdge[] = [];
    const relationships: RelationshipDefinition[] = [];
    const refused: EdgeError[] = [];
    for (let at = 0; at < batch.length; at += 1) {
      if (at % TICK_EVERY === 0) {
        const pause = tick();
        if (pause) await pause;
      }
      const item = batch[at]!;
      const { edge } = item;
      const sourceName = typeOfId(edge.from);
      const targetName = typeOfId(edge.to);
      let known = declaredAs.get(sourceName)?.get(edge.type)?.get(targetName);
      if (known === undefined) {
        let source = sources.get(sourceName);
        if (source === undefined) {
          source = await types(sourceName);
          sources.set(sourceName, source);
        }
        const found = relationshipInType(edge, source);
        if ('error' in found) {
          refused.push({ index: item.index, error: found.error });
          continue;
        }
        known = found;
        let byLabel = declaredAs.get(sourceName);
        if (byLabel === undefined) {
          byLabel = new Map();
          declaredAs.set(sourceName, byLabel);
        }
        let byTarget = byLabel.get(edge.type);
        if (byTarget === undefined) {
          byTarget = new Map();
          byLabel.set(edge.type, byTarget);
        }
        byTarget.set(targetName, found);
      }
      declared.push(item);
      relationships.push(known.relationship);
    }
    const outcome =
      declared.length === 0
        ? { errors: [], merged: 0, mismatch: 0 }
        : await graph.transaction((tx) =>
            mergeBatch({ tx, batch: declared, declaredAs: relationships, actor, tick }),
          );
    errors.push(...refused, ...outcome.errors);
    merged += outcome.merged;
    mismatch += outcome.mismatch;
  };
  const fail = (item: IndexedEdge, error: unknown) =>
    errors.push({ index: item.index, error: errorMessage(error) });
  for (const [start, end] of ranges) {
    const batch: IndexedEdge[] = [];
    for (let index = start; index < end; index += 1) {
      if ((index - start) % TICK_EVERY === 0) {
        const pause = tick();
        if (pause) await pause;
      }
      // The usual well-formed edge without readEdge's answer object; anything else through it.
      const plain = plainEdge(edges[index]);
      if (plain) {
        batch.push({ index, edge: plain });
        continue;
      }
      const read = readEdge(edges[index], index);
      if ('error' in read) errors.push(read.error);
      else batch.push({ index, edge: read.edge });
    }
    if (batch.length > 0) await runSplitting(batch, run, fail);
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
