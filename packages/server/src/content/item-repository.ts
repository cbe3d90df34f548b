import {
  type AppendBlockBody,
  type Block,
  type ContentRecord,
  type ContentWriteInput,
  invalidFieldsError,
  type StoredContentType,
  searchText,
  TrellisError,
} from '@trelliscms/core';
import type {
  Graph,
  GraphNode,
  GraphReader,
  GraphWriter,
  NodeJsonWithEdges,
  NodeQuery,
  PropFilter,
} from '../engines/port';
import { retractEverywhere } from '../releases/publish-items';
import { checkVersion } from '../shared/entity-tag';
import { deleteItemTranslations } from '../site-resources/locales';
import { forgetItemWorkflow } from '../workflows/item-workflow';
import { checkBlock } from './block-check';
import {
  CONTENT_LABEL,
  contentRecordJson,
  type ItemMeta,
  itemProps,
  relationshipsOf,
  splitItemProps,
  toContentRecord,
  typeOfId,
} from './item-record';
import { getTombstone, pinnedVersions, tombstoneId, tombstoneNode } from './item-tombstone';
import {
  checkItemWrite,
  dropOtherTargets,
  findMissingReferences,
  type ItemReference,
  keyFieldIssue,
  missingReferenceIssues,
  nextItemMeta,
  prepareNewItem,
} from './item-write';
import { ensureVersionNode, VERSION_LABEL, versionNode } from './versions';

/** Default and maximum `limit` of GET /api/content/{type}. */
export const CONTENT_LIST_LIMIT = { default: 100, max: 1000 } as const;

/** A written item: its record and its new version. */
export interface WrittenItem {
  record: ContentRecord;
  version: number;
}

function notFound(id: string): TrellisError {
  return TrellisError.of('not_found', { resource: `Item \`${id}\`` });
}

/** Throws 409 `version_conflict` unless the item is at the expected version (when one is given). */
export function assertItemVersion(id: string, expected: number | null | undefined, current: number): void {
  checkVersion({ expected, current, resource: `item ${id}`, extra: { id, currentVersion: current } });
}

async function readItem(reader: GraphReader, type: StoredContentType, id: string): Promise<GraphNode> {
  const node = await reader.getNode(id);
  if (node === null) throw notFound(id);
  assertItemOfType(node, type, id);
  return node;
}

/** 404 unless `node` is an item of `type` (its label, and the type named by its id). */
function assertItemOfType(node: GraphNode, type: StoredContentType, id: string): void {
  if (!node.labels.includes(type.nodeLabel) || typeOfId(id) !== type.name) throw notFound(id);
}

/** Throws the 400 of the references that point at nothing, if any. */
async function assertReferencesExist(reader: GraphReader, references: ItemReference[]): Promise<void> {
  const missing = await findMissingReferences({ reader, references });
  if (missing.length > 0) throw invalidFieldsError(missingReferenceIssues(references, new Set(missing)));
}

/** Replaces the edges of each given relationship with its new targets. */
export async function writeRelationships(
  tx: GraphWriter,
  type: StoredContentType,
  id: string,
  targets: Record<string, string[]>,
  isCreate: boolean,
): Promise<void> {
  for (const [name, ids] of Object.entries(targets)) {
    const relationship = type.relationships.find((candidate) => candidate.name === name)!;
    if (!isCreate) await dropOtherTargets({ tx, type, id, name, kept: ids });
    for (const to of ids) await tx.mergeEdge({ from: id, type: relationship.edgeLabel, to, props: {} });
  }
}

/** Writes the item node's new state (searchable by its text fields), its version node and the audit entry. */
async function commitVersion({
  tx,
  type,
  id,
  labels,
  fields,
  meta,
  action,
  actor,
  isCreate,
  auditData,
}: {
  tx: GraphWriter;
  type: StoredContentType;
  id: string;
  labels: string[];
  fields: Record<string, unknown>;
  meta: ItemMeta;
  action: string;
  actor: string;
  isCreate: boolean;
  auditData?: Record<string, unknown>;
}): Promise<GraphNode> {
  const node = { id, labels, props: itemProps(fields, meta) };
  const text = searchText({ type, fields });
  if (isCreate) await tx.createNode({ ...node, searchText: text });
  else await tx.updateNode(id, { props: node.props, searchText: text });
  await tx.createNode(versionNode({ id, fields, meta, action, actor }));
  await tx.appendAudit({
    actor,
    action,
    target: id,
    data: { version: meta.version, hash: meta.hash, ...auditData },
  });
  return node;
}

/**
 * Creates an item: 201 with id `<type>:<slug>` (slug from `input.id` or the type's keyField).
 * An item deleted while releases pin its versions (a tombstone, see item-tombstone.ts) is
 * re-created at the version after its last one, so its kept versions stay as they are.
 * 400 when a field or relationship is invalid or points at nothing, 409 `conflict` when the
 * id exists, 409 `unique_violation` when a unique field's value is taken.
 */
export async function createItem({
  graph,
  type,
  input,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  input: ContentWriteInput;
  actor: string;
}): Promise<WrittenItem> {
  // The checks answer in this order: fields, key, an existing id, relationships, references.
  const prepared = prepareNewItem({ type, input });
  if (prepared.fieldIssues.length > 0) throw invalidFieldsError(prepared.fieldIssues);
  const { id, fields, targets } = prepared;
  if (id === null) throw invalidFieldsError([keyFieldIssue(type)]);
  return graph.transaction(async (tx) => {
    if (await tx.getNode(id)) {
      throw TrellisError.of('conflict', { detail: `The item ${id} already exists; PATCH it instead.` });
    }
    if (prepared.relationshipIssues.length > 0) throw invalidFieldsError(prepared.relationshipIssues);
    await assertReferencesExist(tx, prepared.references);
    const fresh = nextItemMeta({ previous: null, fields, actor, now: new Date().toISOString() });
    const tombstone = await getTombstone(tx, id);
    const meta = tombstone ? { ...fresh, version: tombstone.version + 1 } : fresh;
    if (tombstone) await tx.deleteNode(tombstoneId(id));
    const node = await commitVersion({
      tx,
      type,
      id,
      labels: [type.nodeLabel, CONTENT_LABEL],
      fields,
      meta,
      action: 'content.create',
      actor,
      isCreate: true,
    });
    await writeRelationships(tx, type, id, targets, true);
    return {
      record: toContentRecord(node, relationshipsFromTargets(type, targets)),
      version: meta.version,
    };
  });
}

function relationshipsFromTargets(type: StoredContentType, targets: Record<string, string[]>) {
  return relationshipsOf(
    type,
    Object.entries(targets).flatMap(([name, ids]) => {
      const relationship = type.relationships.find((candidate) => candidate.name === name)!;
      return ids.map((to) => ({ from: '', type: relationship.edgeLabel, to, props: {} }));
    }),
  );
}

/** One item with its relationships; 404 when the type has no such item. */
export async function getItem({
  graph,
  type,
  id,
}: {
  graph: GraphReader;
  type: StoredContentType;
  id: string;
}): Promise<WrittenItem> {
  let record: ContentRecord;
  if (type.relationships.length > 0) {
    // The item and its edges in one engine call (one statement, one round trip).
    const read = await graph.getNodeWithEdges(id);
    if (read === null) throw notFound(id);
    assertItemOfType(read.node, type, id);
    record = toContentRecord(read.node, relationshipsOf(type, read.edges));
  } else {
    record = toContentRecord(await readItem(graph, type, id), {});
  }
  return { record, version: record.version ?? 1 };
}

/**
 * What `JSON.stringify(getItem(…).record)` is, byte for byte, and the item's version, built
 * from the props' stored text (item-record.ts contentRecordJson: no parse, no re-serialization
 * of the fields and body): the answer of GET /api/content/{type}/{id}.
 */
export async function getItemJson({
  graph,
  type,
  id,
  prefetched,
}: {
  graph: GraphReader;
  type: StoredContentType;
  id: string;
  /**
   * `graph.getNodeJsonWithEdges(id)` already started for this request
   * (content/item-read-cache.ts `takePrefetched`); when it failed, the item is read afresh.
   */
  prefetched?: Promise<NodeJsonWithEdges | null>;
}): Promise<{ json: string; version: number }> {
  const read =
    prefetched === undefined
      ? await graph.getNodeJsonWithEdges(id)
      : await prefetched.catch(() => graph.getNodeJsonWithEdges(id));
  return itemJsonOf(type, id, read);
}

/**
 * {@link getItemJson} from the engine's answer, synchronously: the record's JSON and version,
 * or the 404 it throws for a missing item or one of another type.
 */
export function itemJsonOf(
  type: StoredContentType,
  id: string,
  read: NodeJsonWithEdges | null,
): { json: string; version: number } {
  if (read === null || !read.labels.includes(type.nodeLabel) || typeOfId(id) !== type.name)
    throw notFound(id);
  // The same read answered to several requests (the embedded engine answers the reads of one id
  // asked in one turn with one object) gives the same record: built once.
  const last = lastItemJson;
  if (last !== null && last.read === read && last.type === type && last.id === id) return last.result;
  const result = contentRecordJson(
    id,
    read.propsJson,
    type.relationships.length > 0 ? relationshipsOf(type, read.edges) : {},
  );
  lastItemJson = { read, type, id, result };
  return result;
}

/**
 * The last record {@link itemJsonOf} built, by the identity of the read and the type it was
 * built from (neither is changed once answered); replaced by the next one, so it keeps one read.
 */
let lastItemJson: {
  read: NodeJsonWithEdges;
  type: StoredContentType;
  id: string;
  result: { json: string; version: number };
} | null = null;

/**
 * A page of a type's items with the total count of matches independent of `limit`/`offset`:
 * filtered by `where` (see item-list-query.ts) and full-text `q`, ordered by `orderBy` then
 * id (by relevance with `q` and no `orderBy`). Items are listed without relationships.
 */
export async function listItems({
  graph,
  type,
  limit = CONTENT_LIST_LIMIT.default,
  offset = 0,
  q,
  where = [],
  orderBy = [],
}: {
  graph: GraphReader;
  type: StoredContentType;
  limit?: number;
  offset?: number;
  q?: string;
  where?: PropFilter[];
  orderBy?: NodeQuery['orderBy'];
}): Promise<{ items: ContentRecord[]; total: number }> {
  const page = await graph.findNodes({
    label: type.nodeLabel,
    where,
    ...(orderBy.length > 0 ? { orderBy } : {}),
    ...(q !== undefined && q.trim() !== '' ? { q } : {}),
    limit,
    offset,
  });
  return { items: page.nodes.map((node) => toContentRecord(node)), total: page.total };
}

/** A write on an existing item: its new fields (and meta, relationship targets) from the current ones. */
interface ItemMutation {
  type: StoredContentType;
  id: string;
  expectedVersion: number | null | undefined;
  actor: string;
  action: string;
  /** Extra data of the audit entry (e.g. the cascade it is part of). */
  auditData?: Record<string, unknown>;
  change: (
    tx: GraphWriter,
    current: { fields: Record<string, unknown>; meta: ItemMeta },
  ) => Promise<{
    fields: Record<string, unknown>;
    meta: Partial<ItemMeta>;
    targets?: Record<string, string[]>;
  }>;
}

/** Runs a write on an existing item inside one transaction, checking the expected version. */
async function mutateItem({ graph, ...mutation }: ItemMutation & { graph: Graph }): Promise<WrittenItem> {
  return graph.transaction((tx) => mutateItemIn(tx, mutation));
}

/** {@link mutateItem} in the caller's transaction. */
async function mutateItemIn(
  tx: GraphWriter,
  { type, id, expectedVersion, actor, action, auditData, change }: ItemMutation,
): Promise<WrittenItem> {
  const node = await readItem(tx, type, id);
  const current = splitItemProps(node.props);
  assertItemVersion(id, expectedVersion, current.meta.version);
  await ensureVersionNode(tx, node);
  const next = await change(tx, current);
  const meta = nextItemMeta({
    previous: { ...current.meta, ...next.meta },
    fields: next.fields,
    actor,
    now: new Date().toISOString(),
  });
  const written = await commitVersion({
    tx,
    type,
    id,
    labels: node.labels,
    fields: next.fields,
    meta,
    action,
    actor,
    isCreate: false,
    auditData,
  });
  if (next.targets) await writeRelationships(tx, type, id, next.targets, false);
  const relationships =
    type.relationships.length > 0 ? relationshipsOf(type, await tx.getEdges({ from: id })) : {};
  return { record: toContentRecord(written, relationships), version: meta.version };
}

/**
 * A partial update: given fields replace the stored ones (`null` clears one), given
 * relationships replace that relationship's edges. 409 `version_conflict` when
 * `expectedVersion` (If-Match or body) is not the current version.
 */
export async function updateItem({
  graph,
  type,
  id,
  input,
  expectedVersion,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  id: string;
  input: ContentWriteInput;
  expectedVersion: number | null | undefined;
  actor: string;
}): Promise<WrittenItem> {
  return mutateItem({
    graph,
    type,
    id,
    expectedVersion,
    actor,
    action: 'content.update',
    change: async (tx, current) => {
      const checked = checkItemWrite({
        type,
        fields: { ...current.fields, ...input.fields },
        relationships: input.relationships,
        isCreate: false,
      });
      const issues = [...checked.fieldIssues, ...checked.relationshipIssues];
      if (issues.length > 0) throw invalidFieldsError(issues);
      // A value the item already holds is not checked again: an item whose asset or referenced
      // item was deleted since stays editable (only what the write introduces must exist).
      await assertReferencesExist(
        tx,
        checked.references.filter((reference) => current.fields[reference.field] !== reference.id),
      );
      return { fields: checked.fields, meta: {}, targets: checked.targets };
    },
  });
}

/**
 * Clears `fields` of an item (a new version, as a PATCH with `null`s would write) in the
 * caller's transaction; a media asset's cascade uses it. The fields must be optional ones.
 */
export async function clearFieldsIn(
  tx: GraphWriter,
  {
    type,
    id,
    fields,
    actor,
    auditData,
  }: {
    type: StoredContentType;
    id: string;
    fields: readonly string[];
    actor: string;
    auditData?: Record<string, unknown>;
  },
): Promise<WrittenItem> {
  return mutateItemIn(tx, {
    type,
    id,
    expectedVersion: null,
    actor,
    action: 'content.update',
    auditData,
    change: async (_tx, current) => {
      const next = { ...current.fields };
      for (const field of fields) delete next[field];
      return { fields: next, meta: {} };
    },
  });
}

/**
 * Deletes an item, its edges and its version history; 404 when there is none. The versions a
 * release includes are kept, with a tombstone (item-tombstone.ts), so those releases stay
 * deployable and their replays whole; an item no release refers to is removed entirely.
 */
export async function deleteItem({
  graph,
  ...input
}: {
  graph: Graph;
  type: StoredContentType;
  id: string;
  expectedVersion: number | null | undefined;
  actor: string;
  /** When it is deleted (the time of the live revisions that take it down). */
  now?: Date;
}): Promise<void> {
  await graph.transaction((tx) => deleteItemIn(tx, input));
}

/**
 * {@link deleteItem} in the caller's transaction (a content type's cascade deletes its items
 * in its own). `releases` are the site's release nodes when the caller has read them already.
 */
export async function deleteItemIn(
  tx: GraphWriter,
  {
    type,
    id,
    expectedVersion,
    actor,
    now = new Date(),
    releases,
    auditData,
  }: {
    type: StoredContentType;
    id: string;
    expectedVersion: number | null | undefined;
    actor: string;
    now?: Date;
    releases?: readonly GraphNode[];
    /** Extra data of the audit entry (e.g. the cascade it is part of). */
    auditData?: Record<string, unknown>;
  },
): Promise<void> {
  const node = await readItem(tx, type, id);
  const { meta } = splitItemProps(node.props);
  assertItemVersion(id, expectedVersion, meta.version);
  const pins = await pinnedVersions(tx, id, releases);
  // A pinned head an import left unstored lives only in the item node: store it first.
  if (pins.versions.has(meta.version)) await ensureVersionNode(tx, node);
  // Deleting takes the item out of every environment it is live in (their next build drops it).
  const retractedFrom = await retractEverywhere({ tx, id, actor, now });
  await tx.deleteNode(id);
  // its values in other locales go with it (a new item of the same id starts untranslated)
  await deleteItemTranslations(tx, id);
  await forgetItemWorkflow(tx, id);
  const versions = await tx.findNodes({
    label: VERSION_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: id }],
  });
  for (const version of versions.nodes) {
    if (!pins.versions.has(Number(version.props.version))) await tx.deleteNode(version.id);
  }
  const keptVersions = [...pins.versions].sort((a, b) => a - b);
  if (keptVersions.length > 0) {
    await tx.putNode(
      tombstoneNode({
        itemId: id,
        version: meta.version,
        hash: meta.hash,
        deletedAt: new Date().toISOString(),
        deletedBy: actor,
        keptVersions,
        releaseIds: pins.releaseIds,
      }),
    );
  } else {
    await tx.deleteNode(tombstoneId(id));
  }
  await tx.appendAudit({
    actor,
    action: 'content.delete',
    target: id,
    data: {
      version: meta.version,
      ...(keptVersions.length > 0 ? { keptVersions, releaseIds: pins.releaseIds } : {}),
      ...(retractedFrom.length > 0 ? { retractedFrom } : {}),
      ...auditData,
    },
  });
}

function newBlockId(): string {
  return `blk_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/**
 * Appends a block (at `order`, else at the end) to the item's body; the block must match its
 * block type (block-check.ts) and its references must exist.
 */
export async function appendBlock({
  graph,
  type,
  id,
  block: input,
  expectedVersion,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  id: string;
  block: AppendBlockBody;
  expectedVersion: number | null | undefined;
  actor: string;
}): Promise<WrittenItem & { block: Block }> {
  const fields = await checkBlock({ reader: graph, type, block: input });
  const block: Block = {
    id: newBlockId(),
    type: input.blockType,
    data: { ...fields, ...(input.references ? { references: input.references } : {}) },
  };
  const written = await mutateItem({
    graph,
    type,
    id,
    expectedVersion,
    actor,
    action: 'content.block.append',
    change: async (tx, current) => {
      await assertReferencesExist(
        tx,
        (input.references ?? []).map((ref) => ({ field: 'references', id: ref })),
      );
      const blocks = [...current.meta.body.blocks];
      blocks.splice(Math.min(input.order ?? blocks.length, blocks.length), 0, block);
      return { fields: current.fields, meta: { body: { ...current.meta.body, time: Date.now(), blocks } } };
    },
  });
  return { ...written, block };
}

/** Removes block `blockId` from the item's body; 404 when the body has no such block. */
export async function removeBlock({
  graph,
  type,
  id,
  blockId,
  expectedVersion,
  actor,
}: {
  graph: Graph;
  type: StoredContentType;
  id: string;
  blockId: string;
  expectedVersion: number | null | undefined;
  actor: string;
}): Promise<WrittenItem & { block: Block }> {
  let removed: Block | undefined;
  const written = await mutateItem({
    graph,
    type,
    id,
    expectedVersion,
    actor,
    action: 'content.block.remove',
    change: async (_tx, current) => {
      removed = current.meta.body.blocks.find((block) => block.id === blockId);
      if (!removed) throw TrellisError.of('not_found', { resource: `Block \`${blockId}\` of ${id}` });
      const blocks = current.meta.body.blocks.filter((block) => block.id !== blockId);
      return { fields: current.fields, meta: { body: { ...current.meta.body, time: Date.now(), blocks } } };
    },
  });
  return { ...written, block: removed! };
}
