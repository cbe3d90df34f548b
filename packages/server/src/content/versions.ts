import type { BlockDocument, ItemVersion } from '@trelliscms/core';
import type { GraphNode, GraphReader } from '../engines/port';
import type { ItemMeta } from './item-record';

/** The node label of item versions. */
export const VERSION_LABEL = 'ItemVersion';

/** The node id of version `version` of item `id`: `<id>@<version>`. */
export function versionNodeId(id: string, version: number): string {
  return `${id}@${version}`;
}

/** One recorded version of an item (core `ItemVersion`). */
export type ItemVersionView = ItemVersion;

/**
 * The version node of a write: a snapshot of the fields and body with its content hash, so a
 * release can bundle this exact version (`versionableId`, `version`, `hash`).
 */
export function versionNode({
  id,
  fields,
  meta,
  action,
  actor,
}: {
  id: string;
  fields: Record<string, unknown>;
  meta: ItemMeta;
  action: string;
  actor: string;
}): GraphNode {
  return {
    id: versionNodeId(id, meta.version),
    labels: [VERSION_LABEL],
    props: {
      itemId: id,
      version: meta.version,
      hash: meta.hash,
      status: meta.status,
      action,
      actor,
      at: meta.updatedAt,
      fields,
      body: meta.body,
    },
  };
}

function toVersionView(node: GraphNode): ItemVersionView {
  const props = node.props;
  return {
    id: node.id,
    itemId: String(props.itemId),
    version: Number(props.version),
    hash: String(props.hash),
    status: String(props.status),
    action: String(props.action),
    actor: String(props.actor),
    at: String(props.at),
    fields: (props.fields as Record<string, unknown>) ?? {},
    body: (props.body as BlockDocument | undefined) ?? null,
  };
}

/** The versions of an item, newest first. */
export async function listVersions(reader: GraphReader, id: string): Promise<ItemVersionView[]> {
  const page = await reader.findNodes({
    label: VERSION_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: id }],
    orderBy: [{ prop: 'version', direction: 'desc' }],
  });
  return page.nodes.map(toVersionView);
}

/** One version of an item, or null. */
export async function getVersion(
  reader: GraphReader,
  id: string,
  version: number,
): Promise<ItemVersionView | null> {
  const node = await reader.getNode(versionNodeId(id, version));
  return node ? toVersionView(node) : null;
}
