import type { GraphNode, GraphReader } from '../engines/port';
import { RELEASE_LABEL, toRelease } from '../releases/release-records';

/**
 * An item's versions are kept while a release refers to them (docs/releases.md "Integrity").
 * Deleting an item that releases pin removes the item (it leaves lists, reads 404, builds do
 * not render it) and its other versions, but keeps the pinned `ItemVersion` nodes and leaves a
 * tombstone `<id>@tombstone`: the item's head at deletion, so the reviews of those releases
 * stay fresh and their deploys and replays find every version they name. Re-creating the item
 * continues its version numbers after the tombstone's (the kept versions are never
 * overwritten) and removes the tombstone.
 */

/** The node label of item tombstones. */
export const TOMBSTONE_LABEL = 'ItemTombstone';

/** The node id of the tombstone of item `id`. */
export function tombstoneId(id: string): string {
  return `${id}@tombstone`;
}

/** A deleted item whose versions releases pin. */
export interface ItemTombstone {
  itemId: string;
  /** The item's head at deletion. */
  version: number;
  hash: string;
  deletedAt: string;
  deletedBy: string;
  /** The versions kept, because a release includes them. */
  keptVersions: number[];
  /** The releases that included them at deletion. */
  releaseIds: string[];
}

function toTombstone(node: GraphNode): ItemTombstone {
  const props = node.props;
  return {
    itemId: String(props.itemId),
    version: Number(props.version),
    hash: String(props.hash),
    deletedAt: String(props.deletedAt),
    deletedBy: String(props.deletedBy),
    keptVersions: ((props.keptVersions as number[] | undefined) ?? []).map(Number),
    releaseIds: ((props.releaseIds as string[] | undefined) ?? []).map(String),
  };
}

/** The tombstone node of a deletion. */
export function tombstoneNode(tombstone: ItemTombstone): GraphNode {
  return { id: tombstoneId(tombstone.itemId), labels: [TOMBSTONE_LABEL], props: { ...tombstone } };
}

/** The tombstone of item `id`, or null (never deleted, deleted without pins, or re-created). */
export async function getTombstone(reader: GraphReader, id: string): Promise<ItemTombstone | null> {
  const node = await reader.getNode(tombstoneId(id));
  return node?.labels.includes(TOMBSTONE_LABEL) ? toTombstone(node) : null;
}

/** The tombstones of the items `ids` that have one, by item id (one engine call). */
export async function getTombstones(
  reader: GraphReader,
  ids: readonly string[],
): Promise<Map<string, ItemTombstone>> {
  if (ids.length === 0) return new Map();
  // Most graphs hold no tombstone: for a batch, one probe of the label (an index range, empty)
  // costs less than looking up every id.
  if (ids.length > 1 && (await reader.findNodes({ label: TOMBSTONE_LABEL, limit: 1 })).nodes.length === 0)
    return new Map();
  const nodes = await reader.getNodes(ids.map(tombstoneId));
  return new Map(
    nodes
      .filter((node) => node.labels.includes(TOMBSTONE_LABEL))
      .map((node) => {
        const tombstone = toTombstone(node);
        return [tombstone.itemId, tombstone];
      }),
  );
}

/**
 * The versions of item `id` that releases include (any state), and those releases.
 * `releases`: the site's release nodes, when the caller has read them already.
 */
export async function pinnedVersions(
  reader: GraphReader,
  id: string,
  releases?: readonly GraphNode[],
): Promise<{ versions: Set<number>; releaseIds: string[] }> {
  const nodes = releases ?? (await reader.findNodes({ label: RELEASE_LABEL })).nodes;
  const versions = new Set<number>();
  const releaseIds: string[] = [];
  for (const node of nodes) {
    const release = toRelease(node);
    const pins = release.includes.filter((include) => include.versionableId === id);
    if (pins.length === 0) continue;
    releaseIds.push(release.id);
    for (const include of pins) versions.add(include.version);
  }
  return { versions, releaseIds };
}
