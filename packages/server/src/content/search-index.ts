import { type StoredContentType, searchText, TEXT_FIELD_TYPES } from '@trelliscms/core';
import type { GraphWriter } from '../engines/port';
import { nodePages } from '../shared/node-pages';
import { CONTENT_LABEL, splitItemProps, typeOfId } from './item-record';

/**
 * Item nodes are written with the search text of their type's text fields (core `searchText`),
 * so full-text search (`q`) matches what users wrote, not bookkeeping. This module brings
 * stored items in line when that text changes without an item write: the type's text fields
 * changed, or a graph written before items had a search text (the data migration).
 */

/** The names of a type's text fields, in order: what its items' search text is made of. */
export function textFieldNames(type: Pick<StoredContentType, 'fields'>): string[] {
  return type.fields.filter((field) => TEXT_FIELD_TYPES.has(field.type)).map((field) => field.name);
}

/** Whether items written under `before` would have another search text under `after`. */
export function searchTextChanged(
  before: Pick<StoredContentType, 'fields'>,
  after: Pick<StoredContentType, 'fields'>,
): boolean {
  return textFieldNames(before).join('\n') !== textFieldNames(after).join('\n');
}

/**
 * Gives every item of `type` the search text of its fields (props unchanged). Runs in the
 * caller's transaction; returns how many items it rewrote.
 */
export async function reindexItems(tx: GraphWriter, type: StoredContentType): Promise<number> {
  let count = 0;
  for await (const page of nodePages(tx, { label: type.nodeLabel }, 500)) {
    count += await reindexPage(
      tx,
      type,
      page.map((node) => node.id),
    );
  }
  return count;
}

/**
 * Gives the items `ids` of `type` (read again in `tx`, so a concurrent write is not undone)
 * the search text of their fields; ids that are not items of the type are skipped. Returns
 * how many it rewrote.
 */
export async function reindexPage(tx: GraphWriter, type: StoredContentType, ids: string[]): Promise<number> {
  let count = 0;
  for (const node of await tx.getNodes(ids)) {
    if (!node.labels.includes(CONTENT_LABEL) || typeOfId(node.id) !== type.name) continue;
    const { fields } = splitItemProps(node.props);
    await tx.updateNode(node.id, { props: node.props, searchText: searchText({ type, fields }) });
    count += 1;
  }
  return count;
}
