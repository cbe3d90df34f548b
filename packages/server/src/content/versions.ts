import type { BlockDocument, ItemVersion } from '@trelliscms/core';
import type { GraphNode, GraphReader, GraphWriter } from '../engines/port';
import { type ItemMeta, splitItemProps } from './item-record';

/**
 * Versions of an item are `ItemVersion` nodes `<itemId>@<version>`, written with each write,
 * except one case: a bulk import does not write the version node of the version it creates
 * (it would double the import's writes). That version is the item's current state, so reads
 * ({@link getVersion}, {@link listVersions}) derive it from the item, and the next write
 * stores it first ({@link ensureVersionNode}), so the history stays complete and exact.
 */

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

/** The version node of an item's current state (for a version an import did not store). */
function currentVersionNode(item: GraphNode): GraphNode {
  const { fields, meta } = splitItemProps(item.props);
  return versionNode({ id: item.id, fields, meta, action: 'content.import', actor: meta.updatedBy });
}

/** The versions of an item, newest first. */
export async function listVersions(reader: GraphReader, id: string): Promise<ItemVersionView[]> {
  const page = await reader.findNodes({
    label: VERSION_LABEL,
    where: [{ prop: 'itemId', op: 'eq', value: id }],
    orderBy: [{ prop: 'version', direction: 'desc' }],
  });
  const versions = page.nodes.map(toVersionView);
  const item = await reader.getNode(id);
  if (item && versions[0]?.version !== splitItemProps(item.props).meta.version) {
    versions.unshift(toVersionView(currentVersionNode(item)));
  }
  return versions;
}

/** One version of an item, or null. */
export async function getVersion(
  reader: GraphReader,
  id: string,
  version: number,
): Promise<ItemVersionView | null> {
  const node = await reader.getNode(versionNodeId(id, version));
  if (node) return toVersionView(node);
  const item = await reader.getNode(id);
  if (item && splitItemProps(item.props).meta.version === version)
    return toVersionView(currentVersionNode(item));
  return null;
}

/** Stores the version node of the item's current state when an import left it unstored. */
export async function ensureVersionNode(tx: GraphWriter, item: GraphNode): Promise<void> {
  const { meta } = splitItemProps(item.props);
  if (await tx.getNode(versionNodeId(item.id, meta.version))) return;
  await tx.createNode(currentVersionNode(item));
}

/**
 * {@link ensureVersionNode} for many items in two engine calls: one read of their current
 * version nodes, one batch write of those an import left unstored.
 */
export async function ensureVersionNodes(tx: GraphWriter, items: GraphNode[]): Promise<void> {
  if (items.length === 0) return;
  const ids = items.map((item) => versionNodeId(item.id, splitItemProps(item.props).meta.version));
  const stored = new Set((await tx.getNodes(ids)).map((node) => node.id));
  const missing = items.filter((_item, index) => !stored.has(ids[index]!)).map(currentVersionNode);
  if (missing.length > 0) await tx.createNodes(missing);
}
