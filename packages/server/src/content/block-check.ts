import {
  type AppendBlockBody,
  type BlockType,
  type FieldIssue,
  type StoredContentType,
  TrellisError,
  validateFields,
} from '@trelliscms/core';
import type { GraphReader } from '../engines/port';
import { OTHER_RESOURCES } from '../site-resources/resource-specs';
import { listSiteResources, resourceNodeId } from '../site-resources/site-resources';
import { findMissingReferences, type ItemReference } from './item-write';

const BLOCK_TYPES = OTHER_RESOURCES.find((spec) => spec.base === 'block-types')!;

function refused(blockType: string, issues: FieldIssue[]): TrellisError {
  const detail = issues.map((issue) => `field \`${issue.field}\` ${issue.message}`).join('; ');
  return TrellisError.of(
    'validation_failed',
    { detail: `block \`${blockType}\`: ${detail}` },
    { extra: { blockType, issues: issues.map((issue) => ({ ...issue, block: blockType })) } },
  );
}

/**
 * Checks a block before it joins an item's body, against its block type (`/api/block-types`):
 * the type must exist and allow items of `type` (`allowedIn`), and the block's fields must
 * match the type's field definitions (required fields, field types, rules; unknown fields are
 * refused), references among them must exist. Throws 400 `validation_failed` naming the block
 * and its fields; returns the fields to store (defaults applied).
 */
export async function checkBlock({
  reader,
  type,
  block,
}: {
  reader: GraphReader;
  type: StoredContentType;
  block: AppendBlockBody;
}): Promise<Record<string, unknown>> {
  const node = await reader.getNode(resourceNodeId(BLOCK_TYPES, block.blockType));
  if (!node) {
    const known = (await listSiteResources(reader, BLOCK_TYPES)).map((bt) => String(bt.name));
    throw refused(block.blockType, [
      {
        field: 'blockType',
        message: `names no block type of this site (${known.length > 0 ? `block types: ${known.join(', ')}` : 'it has none: create one with POST /api/block-types'})`,
      },
    ]);
  }
  const blockType = node.props as unknown as BlockType;
  if (blockType.allowedIn && !blockType.allowedIn.includes(type.name)) {
    throw refused(block.blockType, [
      {
        field: 'blockType',
        message: `is not allowed in ${type.name} items (allowed in: ${blockType.allowedIn.join(', ') || 'none'})`,
      },
    ]);
  }
  const checked = validateFields({
    type: { name: `block ${block.blockType}`, fields: blockType.fields ?? [] },
    fields: block.fields,
    applyDefaults: true,
  });
  if (checked.issues.length > 0) {
    const unknown = `is not a field of type block ${block.blockType}`;
    throw refused(
      block.blockType,
      checked.issues.map((issue) =>
        issue.message === unknown
          ? { ...issue, message: `is not a field of block type ${block.blockType}` }
          : issue,
      ),
    );
  }
  const references: ItemReference[] = checked.references.map(({ field, id, kind }) => ({ field, id, kind }));
  const missing = new Set(await findMissingReferences({ reader, references }));
  if (missing.size > 0) {
    throw refused(
      block.blockType,
      references
        .filter((reference) => missing.has(reference.id))
        .map((reference) => ({
          field: reference.field,
          message: `points at ${reference.id}, which does not exist`,
        })),
    );
  }
  return checked.fields;
}
