import {
  type BlockDocument,
  type ContentWriteInput,
  contentId,
  deriveSlug,
  type FieldIssue,
  type StoredContentType,
  validateFields,
  validateRelationships,
} from '@trelliscms/core';
import type { GraphReader, GraphWriter } from '../engines/port';
import { internalNodeIdOf } from '../shared/internal-ids';
import { itemHash } from './item-hash';
import { DRAFT, emptyBody, type ItemMeta, typeOfId } from './item-record';

/**
 * What single writes (item-repository.ts) and bulk import (import-records.ts) share: the
 * checks of an item write, its id, the references it needs, and the bookkeeping of its new
 * version. Results are data (issues, ids); each caller turns them into its own answer (a
 * thrown 400/409, an import error row).
 */

/** A node a write points at: a field value or a relationship target. */
export interface ItemReference {
  field: string;
  id: string;
  /** What `id` names: an item (the default) or a media asset (`asset:<id>`, stored as `~asset:<id>`). */
  kind?: 'content' | 'asset';
}

/** A write's fields and relationships, validated against the type. Pure. */
export interface CheckedItemWrite {
  /** The fields to store (defaults applied on create, nulls dropped). */
  fields: Record<string, unknown>;
  /** Each given relationship's target ids, by relationship name. */
  targets: Record<string, string[]>;
  /** What the fields and relationships point at; {@link findMissingReferences} checks it. */
  references: ItemReference[];
  fieldIssues: FieldIssue[];
  relationshipIssues: FieldIssue[];
}

/** Validates the fields and relationships of a write (a complete field set) without I/O. */
export function checkItemWrite({
  type,
  fields,
  relationships,
  isCreate,
}: {
  type: StoredContentType;
  fields: Record<string, unknown>;
  relationships: Record<string, unknown> | undefined;
  isCreate: boolean;
}): CheckedItemWrite {
  const checked = validateFields({ type, fields, applyDefaults: isCreate });
  const related = validateRelationships({ type, relationships: relationships ?? {}, isCreate });
  const references: ItemReference[] = checked.references.map(({ field, id, kind }) => ({ field, id, kind }));
  for (const field in related.targets) {
    for (const id of related.targets[field]!) references.push({ field, id });
  }
  return {
    fields: checked.fields,
    targets: related.targets,
    references,
    fieldIssues: checked.issues,
    relationshipIssues: related.issues,
  };
}

/** A new item's write: its id (`null` when neither the input's id nor the keyField gives a slug). */
export interface PreparedNewItem extends CheckedItemWrite {
  id: string | null;
}

/** Checks a new item's write and works out its id `<type>:<slug>` (slug from `input.id` or the keyField). */
export function prepareNewItem({
  type,
  input,
}: {
  type: StoredContentType;
  input: ContentWriteInput;
}): PreparedNewItem {
  const checked = checkItemWrite({
    type,
    fields: input.fields,
    relationships: input.relationships,
    isCreate: true,
  });
  const slug = deriveSlug({ type, id: input.id, fields: checked.fields });
  return { ...checked, id: slug === null ? null : contentId({ type: type.name, slug }) };
}

/** The issue of a new item that has no id: its key field gives no slug. */
export function keyFieldIssue(type: StoredContentType): FieldIssue {
  return {
    field: type.keyField,
    message: 'is the key field: give it a value with a letter or digit (or give an id)',
  };
}

/**
 * The ids among `references` that point at no node, each once. Ids for which `isPending` holds
 * count as existing (items written in the same request).
 */
export async function findMissingReferences({
  reader,
  references,
  isPending = () => false,
}: {
  reader: GraphReader;
  references: ItemReference[];
  isPending?: (id: string) => boolean;
}): Promise<string[]> {
  if (references.length === 0) return [];
  // The node id of each referenced id, each once: an asset's node is `~asset:<id>`.
  const nodeIds = new Map<string, string>();
  for (const reference of references) {
    if (isPending(reference.id)) continue;
    nodeIds.set(reference.id, reference.kind === 'asset' ? internalNodeIdOf(reference.id) : reference.id);
  }
  if (nodeIds.size === 0) return [];
  const found = new Set((await reader.getNodes([...nodeIds.values()])).map((node) => node.id));
  return [...nodeIds].filter(([, nodeId]) => !found.has(nodeId)).map(([id]) => id);
}

/** One issue per reference of `references` whose id is in `missing`. */
export function missingReferenceIssues(
  references: ItemReference[],
  missing: ReadonlySet<string>,
): FieldIssue[] {
  return references
    .filter((reference) => missing.has(reference.id))
    .map((reference) => ({
      field: reference.field,
      message: `points at ${reference.id}, which does not exist`,
    }));
}

/**
 * The bookkeeping of an item's new version: version 1 of a new item (draft, `body`), or the
 * next version of `previous` (its status, publish stamps, body and creation stamps kept).
 * `hash` is the content hash of the fields with the version's body (default {@link itemHash}).
 */
export function nextItemMeta({
  previous,
  fields,
  body,
  actor,
  now,
  hash = itemHash,
}: {
  previous: ItemMeta | null;
  fields: Record<string, unknown>;
  /** The body of a new item (default: empty; ignored with `previous`). */
  body?: BlockDocument;
  actor: string;
  now: string;
  hash?: (fields: Record<string, unknown>, body: BlockDocument) => string;
}): ItemMeta {
  const versionBody = previous?.body ?? body ?? emptyBody();
  return {
    status: previous?.status ?? DRAFT,
    publishedEnvs: previous?.publishedEnvs ?? [],
    publishedVersions: previous?.publishedVersions ?? {},
    publishedAt: previous?.publishedAt ?? null,
    version: (previous?.version ?? 0) + 1,
    hash: hash(fields, versionBody),
    body: versionBody,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    createdBy: previous?.createdBy ?? actor,
    updatedBy: actor,
  };
}

/**
 * Drops the edges of relationship `name` from `id` whose target is not in `kept` (a write that
 * gives a relationship replaces its targets).
 */
export async function dropOtherTargets({
  tx,
  type,
  id,
  name,
  kept,
}: {
  tx: GraphWriter;
  type: StoredContentType;
  id: string;
  name: string;
  kept: readonly string[];
}): Promise<void> {
  const relationship = type.relationships.find((candidate) => candidate.name === name)!;
  const keep = new Set(kept);
  for (const edge of await tx.getEdges({ from: id, type: relationship.edgeLabel })) {
    if (typeOfId(edge.to) === relationship.target && !keep.has(edge.to)) await tx.deleteEdge(edge);
  }
}
