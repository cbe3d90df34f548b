import type { FieldIssue, ValueReference } from '@trelliscms/core';
import type { GraphReader } from '../engines/port';

/**
 * The references (field values and relationship targets) that point at no node, as issues.
 * Ids for which `isPending` holds count as existing (items written in the same request).
 */
export async function missingReferences({
  reader,
  references,
  isPending = () => false,
}: {
  reader: GraphReader;
  references: Array<Pick<ValueReference, 'field' | 'id'>>;
  isPending?: (id: string) => boolean;
}): Promise<FieldIssue[]> {
  if (references.length === 0) return [];
  const ids = [...new Set(references.map((reference) => reference.id))].filter((id) => !isPending(id));
  const found = new Set(ids.length > 0 ? (await reader.getNodes(ids)).map((node) => node.id) : []);
  return references
    .filter((reference) => !found.has(reference.id) && !isPending(reference.id))
    .map((reference) => ({
      field: reference.field,
      message: `points at ${reference.id}, which does not exist`,
    }));
}
