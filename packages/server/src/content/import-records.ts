import { randomUUID } from 'node:crypto';
import {
  type BlockDocument,
  batchRanges,
  describeIssues,
  type Environment,
  gatewayTimeoutWarning,
  type ImportJsonResponse,
  perSecond,
  type StoredContentType,
  searchText,
  TrellisError,
  toContentWrite,
} from '@trelliscms/core';
import type { Graph, GraphEdge, GraphNode, GraphReader, GraphWriter, NodeRun, Props } from '../engines/port';
import { publishItems } from '../releases/publish-items';
import { cooperativeYield } from '../shared/cooperative-yield';
import { isQueryTimeout } from '../shared/deadline-graph';
import { errorMessage } from './error-message';
import { prepareAhead } from './import-pipeline';
import {
  type BatchParts,
  compileRecordCheck,
  longFieldPieces,
  newRowParts,
  type PreparedRecord,
} from './import-prepare';
import { type FieldPieces, itemHash, itemHasher } from './item-hash';
import {
  CONTENT_LABEL,
  emptyBody,
  type ItemMeta,
  itemProps,
  itemPropsJson,
  newItemsJson,
  splitItemProps,
  typeOfId,
} from './item-record';
import { getTombstones, tombstoneId } from './item-tombstone';
import {
  findMissingReferences,
  keyFieldIssue,
  missingReferenceIssues,
  nextItemMeta,
  prepareNewItem,
} from './item-write';
import { ensureVersionNodes } from './versions';

export { compileRecordCheck, type PreparedRecord };

type ImportError = ImportJsonResponse['errors'][number];

/** A {@link cooperativeYield} checkpoint: awaited between small steps of the import. */
type Tick = () => Promise<void> | undefined;

/**
 * Nodes (and edges) written per engine call inside a batch's transaction, with a checkpoint
 * between calls: an embedded engine call runs on the main thread, and a batch of 500 records in
 * one call held the event loop for about 60 ms.
 */
const WRITE_CHUNK = 100;

/**
 * New items written per engine call when they go as columns (createNodeRun): a batch of up to
 * 500 (the largest `batchSize` of `POST /api/import/json`) in one call — its rows as one multi-row statement per table instead of five, one
 * savepoint instead of five: about 1 µs less CPU per record (bench/node-run-micro.ts), while
 * one such call of 500 small rows costs about 5 ms of CPU (the event loop is held that long).
 */
const NODE_RUN_CHUNK = 500;

/**
 * When an import writes its batches of new items off the main thread (the engine's optional
 * `createNodeRunDetached`, see importRecords), with at most `inFlight` batches sent and not
 * settled: imports of at least `minBatches` batches whose request body holds at most
 * `maxBytesPerRecord` characters of JSON per record (when the body's text is given: the
 * route's imports; no limit by default — with 2.5 KB records the detached path lost on a busy
 * machine, where the writer's thread had no core of its own, and won once there was one:
 * rounds 10 and 11 in docs/benchmarks.md). `enabled: false` writes every batch in a
 * transaction on the main thread (tests, benches); `withPreparingThread` runs the preparing
 * thread beside it (measured slower: round 11).
 */
export const detachedWrites = {
  enabled: true,
  minBatches: 2,
  /** Batches sent to the engine before the oldest is settled (2: the next waits in the writer's thread). */
  inFlight: 2,
  maxBytesPerRecord: Number.POSITIVE_INFINITY,
  withPreparingThread: false,
};

/** Batches of imports in this process written off the main thread, and how long the imports waited for them (benches print them). */
export const detachedWriteStats = { batches: 0, waitedMs: 0 };

/** Validates a record without I/O: its id, fields and relationships. (Exported for tests.) */
export function prepare(
  type: StoredContentType,
  record: Record<string, unknown>,
  index: number,
): { ok: PreparedRecord } | { error: ImportError } {
  const prepared = prepareNewItem({ type, input: toContentWrite(record) });
  const id = prepared.id ?? '';
  const issues = [...prepared.fieldIssues, ...prepared.relationshipIssues];
  if (issues.length > 0) return { error: { index, id, error: describeIssues(issues) } };
  if (prepared.id === null) return { error: { index, id, error: describeIssues([keyFieldIssue(type)]) } };
  const { fields, targets, references } = prepared;
  return { ok: { index, id: prepared.id, fields, targets, references } };
}

/**
 * The store checks of one batch, in one read each: which records exist (skipped with
 * `skipExisting`, replaced otherwise), which point at nothing (ids for which `isPending`
 * holds, and the batch's own, count as existing), which repeat a unique value of an earlier
 * record of the batch, and which point at a record of the batch that failed one of these.
 * Failures go to `errors`. Of the records that pass, those whose existing item already holds
 * the same fields and relationships are `unchanged` (nothing to write); the rest are `writable`.
 */
async function resolveBatch({
  reader,
  type,
  batch,
  skipExisting,
  isPending,
  errors,
  tick,
}: {
  reader: GraphReader;
  type: StoredContentType;
  batch: PreparedRecord[];
  skipExisting: boolean;
  isPending: (id: string) => boolean;
  errors: ImportError[];
  tick: Tick;
}): Promise<{ writable: PreparedRecord[]; unchanged: PreparedRecord[]; skipped: number }> {
  const fail = (record: PreparedRecord, error: string) => {
    errors.push({ index: record.index, id: record.id, error });
  };
  const existing = new Map(
    (await reader.getNodes(batch.map((record) => record.id))).map((node) => [node.id, node]),
  );
  let skipped = 0;
  let candidates: PreparedRecord[] = [];
  for (const record of batch) {
    const node = existing.get(record.id);
    if (node && !node.labels.includes(type.nodeLabel))
      fail(record, `${record.id} exists and is not a ${type.name} item`);
    else if (node && skipExisting) skipped += 1;
    else candidates.push(node ? { ...record, existing: node } : record);
  }
  const references = candidates.flatMap((record) => record.references);
  const own = new Set(candidates.map((record) => record.id));
  if (references.length > 0) {
    const missing = new Set(
      await findMissingReferences({
        reader,
        references,
        isPending: (id) => own.has(id) || isPending(id),
      }),
    );
    if (missing.size > 0) {
      candidates = candidates.filter((record) => {
        const issues = missingReferenceIssues(record.references, missing);
        if (issues.length === 0) return true;
        fail(record, describeIssues(issues));
        return false;
      });
    }
  }
  // Unique values: duplicates inside the batch fail here; a clash with a stored item is caught
  // by the engine's constraint when the batch writes, and the batch is retried in halves
  // (a per-batch lookup by value would scan the label, which is slower than the rare retry).
  candidates = dropRepeatedUniqueValues(type, candidates, fail);
  // A record pointing at a record of this batch that failed a check above fails too (its edge
  // or reference would point at nothing), and so on along a chain, so dryRun tells the truth.
  const failedInBatch = (id: string, kept: Set<string>) =>
    own.has(id) && !kept.has(id) && !existing.has(id) && !isPending(id);
  for (let dropped = references.length > 0; dropped; ) {
    dropped = false;
    const kept = new Set(candidates.map((record) => record.id));
    candidates = candidates.filter((record) => {
      const issues = record.references
        .filter((reference) => failedInBatch(reference.id, kept))
        .map((reference) => ({
          field: reference.field,
          message: `points at ${reference.id}, which failed in this import`,
        }));
      if (issues.length === 0) return true;
      fail(record, describeIssues(issues));
      dropped = true;
      return false;
    });
  }
  const writable: PreparedRecord[] = [];
  const unchanged: PreparedRecord[] = [];
  for (const record of candidates) {
    if (!record.existing) {
      writable.push(record);
      continue;
    }
    await tick();
    const withCurrent = { ...record, current: await currentTargets(reader, type, record) };
    (holdsRecord(withCurrent) ? unchanged : writable).push(withCurrent);
  }
  return { writable, unchanged, skipped };
}

/** The records of `candidates` but those repeating a unique value of an earlier one (each failed with `fail`). */
function dropRepeatedUniqueValues(
  type: StoredContentType,
  candidates: PreparedRecord[],
  fail: (record: PreparedRecord, error: string) => void,
): PreparedRecord[] {
  for (const field of type.fields) {
    if (!field.unique) continue;
    const claimed = new Map<unknown, string>();
    candidates = candidates.filter((record) => {
      const value = record.fields[field.name];
      if (value === undefined || value === null || typeof value === 'object') return true;
      const owner = claimed.get(value);
      if (owner !== undefined && owner !== record.id) {
        fail(
          record,
          `field \`${field.name}\` must be unique: ${owner} in this import has ${JSON.stringify(value)}`,
        );
        return false;
      }
      claimed.set(value, record.id);
      return true;
    });
  }
  return candidates;
}

/** The current targets of each relationship `record` gives, read from its existing item's edges. */
async function currentTargets(
  reader: GraphReader,
  type: StoredContentType,
  record: PreparedRecord,
): Promise<Record<string, string[]>> {
  const names = Object.keys(record.targets);
  if (names.length === 0) return {};
  const edges = await reader.getEdges({ from: record.id });
  const current: Record<string, string[]> = {};
  for (const name of names) {
    const relationship = type.relationships.find((candidate) => candidate.name === name)!;
    current[name] = edges
      .filter((edge) => edge.type === relationship.edgeLabel && typeOfId(edge.to) === relationship.target)
      .map((edge) => edge.to);
  }
  return current;
}

/**
 * Whether the existing item of `record` already holds it: the same content hash of its fields
 * (with the item's body, which an import keeps) and the same targets for each relationship the
 * record gives (relationships it leaves out are not touched by the write either).
 */
function holdsRecord(record: PreparedRecord): boolean {
  const { meta } = splitItemProps(record.existing!.props);
  if (meta.hash === '' || itemHash(record.fields, meta.body) !== meta.hash) return false;
  for (const name in record.targets) {
    const given = new Set(record.targets[name]);
    const current = new Set(record.current?.[name] ?? []);
    if (given.size !== current.size || [...given].some((id) => !current.has(id))) return false;
  }
  return true;
}

/**
 * What the preparing thread made ahead for a batch (import-pipeline.ts): the empty body's time
 * every batch of the import shares, and the parts of its new items' rows (null when the thread
 * gave none: they are made here, with the same body).
 */
interface MadeAhead {
  bodyTime: number;
  parts: BatchParts | null;
}

/** What the records of one batch share: the time, the actor, and the empty body of new items. */
interface BatchStamp {
  now: string;
  actor: string;
  body: BlockDocument;
  /** itemHash, writing the shared `body` once for all new items. */
  hash: (fields: Record<string, unknown>, body: BlockDocument) => string;
}

/**
 * The bookkeeping of a record's new version: version 1, or the next one of the item it
 * replaces, or of the tombstone it re-creates (`afterVersion`: the kept versions stay as they are).
 */
function recordMeta(record: PreparedRecord, stamp: BatchStamp, afterVersion?: number): ItemMeta {
  const meta = nextItemMeta({
    previous: record.existing ? splitItemProps(record.existing.props).meta : null,
    fields: record.fields,
    body: stamp.body,
    actor: stamp.actor,
    now: stamp.now,
    hash: stamp.hash,
  });
  return afterVersion === undefined ? meta : { ...meta, version: afterVersion + 1 };
}

/** A new item on the bulk path (see writeBatch): its id, props JSON, search text and fields. */
interface NewRow {
  id: string;
  json: string;
  text: string;
  fields: Record<string, unknown>;
}

const isNewRow = (entry: GraphNode | NewRow): entry is NewRow => 'json' in entry;

/**
 * Creates the new items of one chunk in their order: runs of bulk-path rows with one
 * createNodeRun (columns), other nodes (re-created tombstones) with createNodes of at most
 * {@link WRITE_CHUNK} each.
 */
async function createChunk(tx: GraphWriter, labels: string[], chunk: Array<GraphNode | NewRow>, tick: Tick) {
  for (let at = 0; at < chunk.length; ) {
    let end = at + 1;
    const bulk = isNewRow(chunk[at]!);
    while (end < chunk.length && isNewRow(chunk[end]!) === bulk) end += 1;
    if (bulk) {
      const rows = chunk.slice(at, end) as NewRow[];
      await tx.createNodeRun!({
        labels,
        ids: rows.map((row) => row.id),
        propsJson: rows.map((row) => row.json),
        searchText: rows.map((row) => row.text),
        uniqueProps: rows.map((row) => row.fields),
      });
    } else {
      for (let from = at; from < end; from += WRITE_CHUNK) {
        if (from > at) await tick();
        await tx.createNodes(chunk.slice(from, Math.min(from + WRITE_CHUNK, end)) as GraphNode[]);
      }
    }
    at = end;
  }
}

/**
 * The bulk-path row (see {@link NewRow}) of a new item (version 1 of a new id): its bookkeeping
 * is the batch's (`actor`, `now`, the empty `body`) but for its hash, so its props' JSON is its
 * fields' JSON with that bookkeeping appended (newItemsJson). A record whose parts the
 * preparing thread made (`parts`, by record index, used when its check gave the same id) gets
 * those; the others are made here (newRowParts, hashed with `hashWithBody`: itemHasher(body)).
 * Null for a type with a field named like a bookkeeping property (newItemsJson): such items
 * are written as nodes.
 */
function newRowMaker({
  type,
  actor,
  body,
  now,
  hashWithBody,
  parts,
}: {
  type: StoredContentType;
  actor: string;
  body: BlockDocument;
  now: string;
  hashWithBody: ReturnType<typeof itemHasher>;
  parts: BatchParts | null;
}): ((record: PreparedRecord) => NewRow) | null {
  const made = new Map<number, number>();
  if (parts) for (let at = 0; at < parts.indexes.length; at += 1) made.set(parts.indexes[at]!, at);
  const newJson = newItemsJson(
    nextItemMeta({ previous: null, fields: {}, body, actor, now, hash: () => '' }),
    type.fields.map((field) => field.name),
  );
  if (newJson === null) return null;
  return (record) => {
    const at = made.get(record.index);
    if (parts && at !== undefined && parts.ids[at] === record.id) {
      return {
        id: record.id,
        json: newJson(parts.fieldsJson[at]!, parts.hashes[at]!),
        text: parts.texts[at]!,
        fields: record.fields,
      };
    }
    const { fieldsJson, hash, text } = newRowParts(type, record.fields, hashWithBody);
    return { id: record.id, json: newJson(fieldsJson, hash), text, fields: record.fields };
  };
}

/** The edge label of each relationship of `type`, by relationship name. */
function edgeLabels(type: StoredContentType): Map<string, string> {
  return new Map(type.relationships.map((relationship) => [relationship.name, relationship.edgeLabel]));
}

/**
 * Writes the checked records of one batch inside its transaction, with few engine calls: the
 * replaced items (their unstored version nodes first, see versions.ts, then one update each,
 * and the removal of their relationship edges the record drops), the new items in one
 * `createNodes`, every new relationship edge of the batch in one `mergeEdges` (after every node
 * of the batch exists, so a record may point at a later one; an edge a replaced item already
 * has is kept as it is, props included), and one audit entry. The new versions' nodes are not
 * written (see versions.ts).
 *
 * Throws when anything fails, so the caller's transaction rolls the whole batch back: an
 * engine constraint (a unique value a stored item holds), or an edge whose end is gone (a
 * record pointed at one of the batch's records that failed its checks).
 */
async function writeBatch(
  tx: GraphWriter,
  type: StoredContentType,
  records: PreparedRecord[],
  actor: string,
  tick: Tick,
  ahead: MadeAhead | null,
): Promise<void> {
  const body = emptyBody(ahead?.bodyTime);
  const hashWithBody = itemHasher(body);
  // each record's pieces made once, for its hash and its stored props (longFieldPieces)
  const pieces = new Map<Record<string, unknown>, FieldPieces | null>();
  const piecesOf = (fields: Record<string, unknown>) => {
    let found = pieces.get(fields);
    if (found === undefined) {
      found = longFieldPieces(fields);
      pieces.set(fields, found);
    }
    return found;
  };
  const stamp: BatchStamp = {
    now: new Date().toISOString(),
    actor,
    body,
    hash: (fields, withBody) =>
      withBody === body
        ? hashWithBody(fields, piecesOf(fields))
        : itemHash(fields, withBody, piecesOf(fields)),
  };
  const labels = edgeLabels(type);
  // Items deleted while releases pin their versions come back after their last version.
  const tombstones = await getTombstones(
    tx,
    records.filter((record) => !record.existing).map((record) => record.id),
  );
  const created: Array<GraphNode | NewRow> = [];
  const replaced: Array<{ record: PreparedRecord; props: Props; text: string }> = [];
  const edges: GraphEdge[] = [];
  // The bulk path for new items (version 1 of a new id): see newRowMaker.
  const newRow =
    tx.createNodeRun === undefined
      ? null
      : newRowMaker({ type, actor, body, now: stamp.now, hashWithBody, parts: ahead?.parts ?? null });
  for (const record of records) {
    if (newRow !== null && !record.existing && !tombstones.has(record.id)) {
      created.push(newRow(record));
    } else {
      const meta = recordMeta(record, stamp, tombstones.get(record.id)?.version);
      const props = itemProps(record.fields, meta);
      const text = searchText({ type, fields: record.fields });
      if (record.existing) replaced.push({ record, props, text });
      else {
        const node: GraphNode = {
          id: record.id,
          labels: [type.nodeLabel, CONTENT_LABEL],
          props,
          searchText: text,
        };
        const flat = piecesOf(record.fields);
        const json = flat && itemPropsJson(record.fields, flat, meta);
        if (json) node.propsJson = json;
        created.push(node);
      }
    }
    for (const name in record.targets) {
      const label = labels.get(name)!;
      const current = new Set(record.current?.[name] ?? []);
      for (const to of record.targets[name]!) {
        if (!current.has(to)) edges.push({ from: record.id, type: label, to, props: {} });
      }
    }
  }
  // Replaced items first, so a value one of them gives up is free for a new item of the batch.
  if (replaced.length > 0) {
    await ensureVersionNodes(
      tx,
      replaced.map(({ record }) => record.existing!),
    );
    for (const { record, props, text } of replaced) {
      await tick();
      await tx.updateNode(record.id, { props, searchText: text });
    }
  }
  for (let at = 0; at < created.length; at += NODE_RUN_CHUNK) {
    await tick();
    await createChunk(tx, [type.nodeLabel, CONTENT_LABEL], created.slice(at, at + NODE_RUN_CHUNK), tick);
  }
  for (const id of tombstones.keys()) await tx.deleteNode(tombstoneId(id));
  // A replaced item's relationship keeps only the record's targets (as a PATCH does).
  for (const { record } of replaced) {
    await tick();
    for (const name in record.targets) {
      const kept = new Set(record.targets[name]);
      for (const to of record.current?.[name] ?? []) {
        if (!kept.has(to)) await tx.deleteEdge({ from: record.id, type: labels.get(name)!, to });
      }
    }
  }
  for (let at = 0; at < edges.length; at += WRITE_CHUNK) {
    await tick();
    const chunk = edges.slice(at, at + WRITE_CHUNK);
    const lost = (await tx.mergeEdges(chunk)).indexOf('missing_endpoint');
    if (lost >= 0) {
      const edge = chunk[lost]!;
      throw new Error(`${edge.from}: its ${edge.type} edge points at ${edge.to}, which was not written`);
    }
  }
  await tx.appendAudit({
    actor,
    action: 'content.import',
    target: `type:${type.name}`,
    data: {
      count: records.length,
      created: created.length,
      updated: replaced.length,
      first: records[0]?.id ?? null,
      last: records.at(-1)?.id ?? null,
    },
  });
}

/**
 * Imports `records` of `type` in batches of `batchSize`, each batch one transaction.
 *
 * Per record: the id is `<type>:<slug>` (slug from `id` or the keyField); fields and
 * relationships are validated as on create; references must exist (or be written earlier
 * in the same import). A record is counted once: `created` (a new item, or one re-created
 * after a delete), `updated` (an existing item replaced by the record: its body, status and
 * publish stamps kept, its relationships the record gives set to the record's targets, a new
 * version recorded with its node written lazily: see versions.ts), `unchanged` (the existing
 * item already holds the record's fields and given relationships: nothing is written, no
 * version, no audit entry), `skipped` (it exists and `skipExisting`), or failed (in
 * `errors`; a repeated id in one request fails every repeat after the first).
 *
 * A bad record fails alone: every check runs before the batch writes, so the batch writes
 * exactly its good records; should the write itself fail (e.g. a unique value a stored item
 * holds, which only the engine's constraint sees), the batch is rolled back and retried as two
 * halves, each its own transaction, down to single records, so the good records land, the bad
 * one fails with the engine's message, and each record is written whole or not at all (a
 * record that failed there only because it points at a record of a later part is tried again
 * once that one landed). `dryRun` runs every check and writes nothing; the counters then
 * say what would happen. With `publishTo`, the created, updated and unchanged items are put
 * live there at the end in one live revision (items already live at their version are left
 * as they are, so a repeated import publishes nothing new).
 *
 * The work yields to the event loop every few milliseconds (between records, and between
 * engine calls of at most {@link WRITE_CHUNK} records inside a batch), so a large import does
 * not hold up other requests (nor make load shedding answer them 503).
 */
export async function importRecords({
  graph,
  type,
  records,
  batchSize,
  skipExisting,
  dryRun,
  actor,
  estimatedRecordsPerSec,
  publishTo,
  now,
  onWritten,
  source,
}: {
  graph: Graph;
  type: StoredContentType;
  records: Record<string, unknown>[];
  batchSize: number;
  skipExisting: boolean;
  dryRun: boolean;
  actor: string;
  /** Publish every written item to this environment at the end (one live revision). */
  publishTo?: Environment | null;
  now?: Date;
  /** The throughput used to project the duration for `gatewayTimeoutWarning`. */
  estimatedRecordsPerSec: number;
  /** Called after each committed batch with the items it wrote (e.g. to embed them again). */
  onWritten?: (
    items: Array<{ id: string; fields: Record<string, unknown>; isNew: boolean }>,
  ) => Promise<void>;
  /**
   * The request body's JSON text whose `records` are `records` (the same text parsed): given,
   * a large import's new rows are prepared ahead on a second thread (import-pipeline.ts).
   */
  source?: string;
}): Promise<ImportJsonResponse> {
  const started = performance.now();
  const errors: ImportError[] = [];
  const seen = new Map<string, number>();
  const pending = new Set<string>();
  /** Items of the import that stand as the records say (written or unchanged): what `publishTo` publishes. */
  const settled: string[] = [];
  let created = 0;
  let updated = 0;
  let unchanged = 0;
  let skipped = 0;
  const ranges = batchRanges({ count: records.length, batchSize });
  const isPending = (id: string) => pending.has(id);
  // Checkpoints between records and engine calls: the import never holds the event loop for
  // much more than a slice, so other requests are answered while it runs.
  const tick = cooperativeYield();
  // Outcomes are recorded only once a batch committed, so a rolled-back batch leaves no trace.
  const runBatch = async (batch: PreparedRecord[], ahead: MadeAhead | null) => {
    const batchErrors: ImportError[] = [];
    const check = (reader: GraphReader) =>
      resolveBatch({ reader, type, batch, skipExisting, isPending, errors: batchErrors, tick });
    const resolved = dryRun
      ? await check(graph)
      : await graph.transaction(async (tx) => {
          const result = await check(tx);
          if (result.writable.length > 0) await writeBatch(tx, type, result.writable, actor, tick, ahead);
          return result;
        });
    await afterCommit(resolved, batchErrors, true);
  };
  /** Records a committed (or dry-run) batch's outcome; `notify`: tells `onWritten` what it wrote. */
  const afterCommit = async (
    resolved: { writable: PreparedRecord[]; unchanged: PreparedRecord[]; skipped: number },
    batchErrors: ImportError[],
    notify: boolean,
  ) => {
    errors.push(...batchErrors);
    for (const record of resolved.writable) {
      pending.add(record.id);
      settled.push(record.id);
      if (record.existing) updated += 1;
      else created += 1;
    }
    for (const record of resolved.unchanged) settled.push(record.id);
    unchanged += resolved.unchanged.length;
    if (notify && !dryRun && onWritten && resolved.writable.length > 0)
      await onWritten(
        resolved.writable.map((record) => ({
          id: record.id,
          fields: record.fields,
          isNew: !record.existing,
        })),
      );
    skipped += resolved.skipped;
  };
  // A batch that failed as a whole (and so wrote nothing) is retried as two halves, down to
  // single records, whose failure is the record's error: one bad record of n costs about
  // 2·log2(n) transactions instead of n.
  const runSplitting = async (batch: PreparedRecord[], ahead: MadeAhead | null): Promise<void> => {
    try {
      await runBatch(batch, ahead);
    } catch (error) {
      // the request's query budget is spent: no record is to blame, the import stops
      if (isQueryTimeout(error)) throw error;
      if (batch.length === 1) {
        errors.push({ index: batch[0]!.index, id: batch[0]!.id, error: errorMessage(error) });
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await runSplitting(batch.slice(0, half), ahead);
      await runSplitting(batch.slice(half), ahead);
      await retryPointingAtLanded(batch, new Set(batch.filter(isWritten).map((record) => record.id)), ahead);
    }
  };
  const isWritten = (record: PreparedRecord) => pending.has(record.id);
  // In the split, a record pointing at a record of its batch that ran in a later part failed
  // because its target was not written yet; once the target landed, it gets another try (and
  // so on, as long as retried records land).
  const retryPointingAtLanded = async (
    batch: PreparedRecord[],
    landed: Set<string>,
    ahead: MadeAhead | null,
  ) => {
    for (let targets = landed; targets.size > 0; ) {
      const failed = new Set(errors.map((error) => error.index));
      const again = batch.filter(
        (record) =>
          failed.has(record.index) && record.references.some((reference) => targets.has(reference.id)),
      );
      if (again.length === 0) return;
      const retried = new Set(again.map((record) => record.index));
      for (let i = errors.length - 1; i >= 0; i -= 1) if (retried.has(errors[i]!.index)) errors.splice(i, 1);
      await runSplitting(again, ahead);
      targets = new Set(again.filter(isWritten).map((record) => record.id));
    }
  };
  // The records of one batch: checked one by one, then written (or split) as one batch.
  const fast = compileRecordCheck(type);
  // A large import's new rows are made ahead on another thread while the batches before are
  // written (the same strings: see import-pipeline.ts); their empty bodies share one time.
  // (Only where the engine takes new items as columns: createNodeRun, the path those rows are for.)
  // Batches of new items are written off this thread (the engine's createNodeRunDetached: the
  // embedded engine sends each to its writer's thread as one message, where its statements and
  // commit run) while the next batch is checked and its rows made here: see runRange and settle.
  const detachable =
    detachedWrites.enabled &&
    !dryRun &&
    ranges.length >= detachedWrites.minBatches &&
    (source === undefined || source.length <= detachedWrites.maxBytesPerRecord * records.length) &&
    typeof graph.createNodeRunDetached === 'function' &&
    typeof graph.createNodeRun === 'function';
  // (Not both unless asked, detachedWrites.withPreparingThread: with the writes off this thread
  // the preparing thread competes with the writer's for the second core and parses the body a
  // second time, for no gain measured: docs/benchmarks.md, rounds 10 and 11.)
  const preparing =
    dryRun ||
    fast === null ||
    typeof graph.createNodeRun !== 'function' ||
    (detachable && !detachedWrites.withPreparingThread)
      ? null
      : prepareAhead({ type, source, ranges });
  const runRange = async (batchNumber: number, start: number, end: number): Promise<void> => {
    const batch: PreparedRecord[] = [];
    for (let index = start; index < end; index += 1) {
      const pause = tick();
      if (pause) await pause;
      const record = records[index] ?? {};
      let ok = fast?.(record, index) ?? null;
      if (ok === null) {
        const result = prepare(type, record, index);
        if ('error' in result) {
          errors.push(result.error);
          continue;
        }
        ok = result.ok;
      }
      const first = seen.get(ok.id);
      if (first !== undefined) {
        errors.push({
          index,
          id: ok.id,
          error: `duplicates the id of record ${first} in this import`,
        });
        continue;
      }
      seen.set(ok.id, index);
      batch.push(ok);
    }
    const ahead: MadeAhead | null = preparing
      ? { bodyTime: preparing.bodyTime, parts: await preparing.take(batchNumber) }
      : null;
    if (batch.length === 0) {
      await tick();
      return;
    }
    // A batch of new items only: written off this thread while the next batch is checked.
    const detached = detachedBatch(batch, ahead);
    while (detached !== null && inFlight.length >= Math.max(1, detachedWrites.inFlight)) await settle();
    if (detached !== null && detachedOn) {
      const write = graph.createNodeRunDetached!({
        ...detached.run,
        chain: { id: chainId, seq: chainSeq++ },
      }).then(
        (outcome) => ({ outcome }),
        (error: unknown) => ({ outcome: 'failed' as const, error }),
      );
      inFlight.push({ batch, ahead, candidates: detached.candidates, errors: detached.errors, write });
    } else {
      await settleAll();
      await runSplitting(batch, ahead);
    }
    await tick();
  };
  // At most `detachedWrites.inFlight` batches are in flight, sent in their order as one chain
  // (the engine writes each only after the one before it was written), so batches commit in
  // their order, each one transaction with its audit entry as before. A batch whose records
  // point at other items is written the ordinary way (once those in flight are settled); so is
  // one the engine declines (an id taken, a tombstone, a unique value held by a stored item: it
  // wrote nothing), and every batch after it (an import that meets stored items goes on the
  // ordinary way, which sorts them into updated, unchanged and skipped).
  let detachedOn = detachable;
  const chainId = randomUUID();
  let chainSeq = 0;
  const inFlight: Array<{
    batch: PreparedRecord[];
    ahead: MadeAhead | null;
    candidates: PreparedRecord[];
    errors: ImportError[];
    write: Promise<{ outcome: 'written' | 'declined' } | { outcome: 'failed'; error: unknown }>;
  }> = [];
  /** The rows of a batch of new items for createNodeRunDetached, or null (the ordinary way). */
  const detachedBatch = (batch: PreparedRecord[], ahead: MadeAhead | null) => {
    if (!detachedOn) return null;
    for (const record of batch) {
      if (record.references.length > 0) return null;
      for (const _ in record.targets) return null;
    }
    const batchErrors: ImportError[] = [];
    const candidates = dropRepeatedUniqueValues(type, batch, (record, error) =>
      batchErrors.push({ index: record.index, id: record.id, error }),
    );
    if (candidates.length === 0) return null;
    const body = emptyBody(ahead?.bodyTime);
    const newRow = newRowMaker({
      type,
      actor,
      body,
      now: new Date().toISOString(),
      hashWithBody: itemHasher(body),
      parts: ahead?.parts ?? null,
    });
    if (newRow === null) return null;
    const count = candidates.length;
    const run: NodeRun = {
      labels: [type.nodeLabel, CONTENT_LABEL],
      ids: new Array(count),
      propsJson: new Array(count),
      searchText: new Array(count),
      uniqueProps: new Array(count),
    };
    for (let k = 0; k < count; k += 1) {
      const row = newRow(candidates[k]!);
      run.ids[k] = row.id;
      run.propsJson[k] = row.json;
      run.searchText[k] = row.text;
      run.uniqueProps[k] = row.fields;
    }
    return {
      candidates,
      errors: batchErrors,
      run: {
        run,
        absent: run.ids.map(tombstoneId),
        audit: {
          actor,
          action: 'content.import',
          target: `type:${type.name}`,
          data: { count, created: count, updated: 0, first: run.ids[0]!, last: run.ids[count - 1]! },
        },
      },
    };
  };
  /**
   * Waits for the oldest batch in flight: written, its outcome is recorded (`notify`: and given
   * to `onWritten`); declined or failed, no later batch goes off this thread, the batches sent
   * after it (declined behind it by the chain, or failed with it) are waited for, and each is
   * written the ordinary way in its order (`fallBack`), which splits it and words each failure
   * as before.
   */
  const settle = async ({ fallBack = true, notify = true } = {}): Promise<void> => {
    const flight = inFlight.shift();
    if (flight === undefined) return;
    const waitFrom = performance.now();
    const done = await flight.write;
    detachedWriteStats.waitedMs += performance.now() - waitFrom;
    detachedWriteStats.batches += 1;
    if (done.outcome === 'written') {
      await afterCommit({ writable: flight.candidates, unchanged: [], skipped: 0 }, flight.errors, notify);
      return;
    }
    detachedOn = false;
    const behind = inFlight.splice(0);
    const outcomes = await Promise.all(behind.map((later) => later.write));
    detachedWriteStats.batches += behind.length;
    // the request's query budget is spent: the import stops (these batches wrote nothing)
    if (done.outcome === 'failed' && isQueryTimeout(done.error)) throw done.error;
    if (!fallBack) return;
    await runSplitting(flight.batch, flight.ahead);
    for (const [at, later] of behind.entries()) {
      // (written only if it was sent without a chain: not by this import)
      const outcome = outcomes[at]!;
      if (outcome.outcome === 'written')
        await afterCommit({ writable: later.candidates, unchanged: [], skipped: 0 }, later.errors, notify);
      else await runSplitting(later.batch, later.ahead);
    }
  };
  /** Settles every batch in flight, oldest first. */
  const settleAll = async (options?: { fallBack?: boolean; notify?: boolean }): Promise<void> => {
    while (inFlight.length > 0) await settle(options);
  };
  // Past the request's query budget (MAX_QUERY_TIMEOUT_MS) the import stops: 504 with what it did.
  try {
    for (const [batchNumber, [start, end]] of ranges.entries()) await runRange(batchNumber, start, end);
    await settleAll();
  } catch (error) {
    // batches written off this thread meanwhile stand: they are counted
    await settleAll({ fallBack: false, notify: false }).catch(() => undefined);
    if (!isQueryTimeout(error)) throw error;
    const timeoutMs = Number((error as { details?: { timeoutMs?: unknown } }).details?.timeoutMs ?? 0);
    throw TrellisError.of(
      'query_timeout',
      { timeoutMs },
      {
        hint: 'The batches counted here were written before the limit; the one running was rolled back. Send the import again (stored records count as unchanged) or in smaller calls.',
        extra: { created, updated, unchanged, skipped, failed: errors.length },
      },
    );
  } finally {
    preparing?.close();
  }
  errors.sort((a, b) => a.index - b.index);
  const published =
    publishTo && !dryRun
      ? {
          envId: publishTo.id,
          count:
            settled.length === 0
              ? 0
              : (
                  await publishItems({
                    graph,
                    environment: publishTo,
                    ids: settled,
                    actor,
                    now: now ?? new Date(),
                    cause: 'import',
                  })
                ).changed.length,
        }
      : undefined;
  const tookMs = Math.round(performance.now() - started);
  return {
    ...(published ? { published } : {}),
    ok: errors.length === 0,
    totalRecords: records.length,
    created,
    failed: errors.length,
    batches: ranges.length,
    tookMs,
    recordsPerSec: perSecond({ count: records.length, ms: performance.now() - started }),
    errors,
    gatewayTimeoutWarning: gatewayTimeoutWarning({
      count: records.length,
      recordsPerSec: estimatedRecordsPerSec,
      tookMs,
    }),
    updated,
    unchanged,
    skipped,
    dryRun,
  };
}
