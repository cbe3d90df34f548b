import {
  batchRanges,
  contentId,
  deriveSlug,
  describeIssues,
  gatewayTimeoutWarning,
  type ImportJsonResponse,
  perSecond,
  type StoredContentType,
  validateFields,
  validateRelationships,
} from '@trelliscms/core';
import type { Graph, GraphNode, GraphReader, GraphWriter } from '../engines/port';
import { errorMessage } from './error-message';
import { readItemInput } from './item-input';
import { CONTENT_LABEL, DRAFT, emptyBody, type ItemMeta, itemProps, splitItemProps } from './item-record';
import { itemHash, writeRelationships } from './item-repository';
import { missingReferences } from './references';
import { ensureVersionNode } from './versions';

/** A record that passed validation, ready to write. */
interface PreparedRecord {
  index: number;
  id: string;
  fields: Record<string, unknown>;
  targets: Record<string, string[]>;
  references: Array<{ field: string; id: string }>;
  existing?: GraphNode;
}

type ImportError = ImportJsonResponse['errors'][number];

/** Validates a record without I/O: its id, fields and relationships. */
function prepare(
  type: StoredContentType,
  record: Record<string, unknown>,
  index: number,
): { ok: PreparedRecord } | { error: ImportError } {
  const input = readItemInput(record);
  const checked = validateFields({ type, fields: input.fields, applyDefaults: true });
  const related = validateRelationships({ type, relationships: input.relationships, isCreate: true });
  const slug = deriveSlug({ type, id: input.id, fields: checked.fields });
  const id = slug === null ? '' : contentId({ type: type.name, slug });
  const issues = [...checked.issues, ...related.issues];
  if (issues.length > 0) return { error: { index, id, error: describeIssues(issues) } };
  if (slug === null) {
    return {
      error: {
        index,
        id,
        error: `field \`${type.keyField}\` is the key field: give it a value with a letter or digit (or give an id)`,
      },
    };
  }
  const references = [
    ...checked.references.map(({ field, id: target }) => ({ field, id: target })),
    ...Object.entries(related.targets).flatMap(([field, ids]) =>
      ids.map((target) => ({ field, id: target })),
    ),
  ];
  return { ok: { index, id, fields: checked.fields, targets: related.targets, references } };
}

/**
 * The store checks of one batch, in one read each: which records exist (skipped with
 * `skipExisting`, replaced otherwise), which point at nothing (ids for which `isPending`
 * holds, and the batch's own, count as existing), and which repeat a unique value of an
 * earlier record of the batch. Failures go to `errors`.
 */
async function resolveBatch({
  reader,
  type,
  batch,
  skipExisting,
  isPending,
  errors,
}: {
  reader: GraphReader;
  type: StoredContentType;
  batch: PreparedRecord[];
  skipExisting: boolean;
  isPending: (id: string) => boolean;
  errors: ImportError[];
}): Promise<{ writable: PreparedRecord[]; skipped: number }> {
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
  if (references.length > 0) {
    const own = new Set(candidates.map((record) => record.id));
    const missing = await missingReferences({
      reader,
      references,
      isPending: (id) => own.has(id) || isPending(id),
    });
    if (missing.length > 0) {
      const missingIds = new Set(missing.map((issue) => issue.message));
      candidates = candidates.filter((record) => {
        const issues = record.references
          .map((reference) => ({
            field: reference.field,
            message: `points at ${reference.id}, which does not exist`,
          }))
          .filter((issue) => missingIds.has(issue.message));
        if (issues.length === 0) return true;
        fail(record, describeIssues(issues));
        return false;
      });
    }
  }
  // Unique values: duplicates inside the batch fail here; a clash with a stored item is caught
  // by the engine's constraint when the batch writes, which then retries record by record
  // (a per-batch lookup by value would scan the label, which is slower than the rare retry).
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
  return { writable: candidates, skipped };
}

/** Writes one record (new or replacing an existing item) with its version node and edges. */
async function writeRecord(
  tx: GraphWriter,
  type: StoredContentType,
  record: PreparedRecord,
  actor: string,
  now: string,
) {
  const previous = record.existing ? splitItemProps(record.existing.props).meta : null;
  const body = previous?.body ?? emptyBody();
  const meta: ItemMeta = {
    status: previous?.status ?? DRAFT,
    publishedEnvs: previous?.publishedEnvs ?? [],
    publishedVersions: previous?.publishedVersions ?? {},
    publishedAt: previous?.publishedAt ?? null,
    version: (previous?.version ?? 0) + 1,
    hash: itemHash(record.fields, body),
    body,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    createdBy: previous?.createdBy ?? actor,
    updatedBy: actor,
  };
  const props = itemProps(record.fields, meta);
  // The new version's node is not written here (see versions.ts): reads derive it from the item.
  if (record.existing) {
    await ensureVersionNode(tx, record.existing);
    await tx.updateNode(record.id, { props });
  } else {
    await tx.createNode({ id: record.id, labels: [type.nodeLabel, CONTENT_LABEL], props });
  }
  if (Object.keys(record.targets).length > 0) {
    await writeRelationships(tx, type, record.id, record.targets, record.existing === undefined);
  }
}

async function writeBatch(
  tx: GraphWriter,
  type: StoredContentType,
  records: PreparedRecord[],
  actor: string,
): Promise<void> {
  const now = new Date().toISOString();
  for (const record of records) await writeRecord(tx, type, record, actor, now);
  await tx.appendAudit({
    actor,
    action: 'content.import',
    target: `type:${type.name}`,
    data: { count: records.length, first: records[0]?.id ?? null, last: records.at(-1)?.id ?? null },
  });
}

/**
 * Imports `records` of `type` in batches of `batchSize`, each batch one transaction.
 *
 * Per record: the id is `<type>:<slug>` (slug from `id` or the keyField); fields and
 * relationships are validated as on create; references must exist (or be written earlier
 * in the same import). An existing item is left alone with `skipExisting`, else replaced by
 * the record (its body, status and publish stamps are kept; a new version is recorded,
 * its node written lazily: see versions.ts).
 *
 * A bad record fails alone: every check runs before the batch writes, so the batch writes
 * exactly its good records; should the write itself fail (e.g. a concurrent writer took a
 * unique value), the batch is rolled back and its records are retried one per transaction,
 * so each is written whole or not at all. `dryRun` runs every check and writes nothing;
 * `created` then counts what would be written.
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
}: {
  graph: Graph;
  type: StoredContentType;
  records: Record<string, unknown>[];
  batchSize: number;
  skipExisting: boolean;
  dryRun: boolean;
  actor: string;
  /** The throughput used to project the duration for `gatewayTimeoutWarning`. */
  estimatedRecordsPerSec: number;
}): Promise<ImportJsonResponse> {
  const started = performance.now();
  const errors: ImportError[] = [];
  const seen = new Map<string, number>();
  const pending = new Set<string>();
  let created = 0;
  let skipped = 0;
  const ranges = batchRanges({ count: records.length, batchSize });
  const isPending = (id: string) => pending.has(id);
  // Outcomes are recorded only once a batch committed, so a rolled-back batch leaves no trace.
  const runBatch = async (batch: PreparedRecord[]) => {
    const batchErrors: ImportError[] = [];
    const check = (reader: GraphReader) =>
      resolveBatch({ reader, type, batch, skipExisting, isPending, errors: batchErrors });
    const resolved = dryRun
      ? await check(graph)
      : await graph.transaction(async (tx) => {
          const result = await check(tx);
          if (result.writable.length > 0) await writeBatch(tx, type, result.writable, actor);
          return result;
        });
    errors.push(...batchErrors);
    for (const record of resolved.writable) pending.add(record.id);
    created += resolved.writable.length;
    skipped += resolved.skipped;
  };
  for (const [start, end] of ranges) {
    const batch: PreparedRecord[] = [];
    for (let index = start; index < end; index += 1) {
      const result = prepare(type, records[index] ?? {}, index);
      if ('error' in result) {
        errors.push(result.error);
        continue;
      }
      const first = seen.get(result.ok.id);
      if (first !== undefined) {
        errors.push({
          index,
          id: result.ok.id,
          error: `duplicates the id of record ${first} in this import`,
        });
        continue;
      }
      seen.set(result.ok.id, index);
      batch.push(result.ok);
    }
    if (batch.length === 0) continue;
    try {
      await runBatch(batch);
    } catch {
      // Roll-back of the whole batch: retry its records one per transaction.
      for (const record of batch) {
        try {
          await runBatch([record]);
        } catch (error) {
          errors.push({ index: record.index, id: record.id, error: errorMessage(error) });
        }
      }
    }
  }
  errors.sort((a, b) => a.index - b.index);
  const tookMs = Math.round(performance.now() - started);
  return {
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
    skipped,
    dryRun,
  };
}
