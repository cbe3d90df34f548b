import type { Holder, StoredContentType } from '@trelliscms/core';
import { typeOfId } from '../content/item-record';
import { listTypes } from '../content/type-repository';
import { getVersion, VERSION_LABEL, versionNodeId } from '../content/versions';
import type { GraphReader } from '../engines/port';
import { LIVE_ITEM_LABEL } from '../releases/live-state';
import { allNodes } from '../shared/node-pages';

/** An item whose current fields show an asset, in which image fields. */
export interface AssetUseInItem {
  type: StoredContentType;
  itemId: string;
  fields: string[];
  /** Whether one of those fields is required (a cascade cannot clear it). */
  isRequired: boolean;
}

/** An item whose version live in an environment shows an asset. */
export interface AssetUseLive {
  itemId: string;
  envId: string;
  version: number;
}

const BATCH = 1000;

/**
 * Where asset `id` is shown: the items whose image fields hold it now, and the item versions
 * live in an environment that hold it (a page served now would lose its image).
 */
export async function findAssetUses(
  reader: GraphReader,
  id: string,
): Promise<{ items: AssetUseInItem[]; live: AssetUseLive[] }> {
  const withImages = (await listTypes(reader)).filter((type) =>
    type.fields.some((field) => field.type === 'image'),
  );
  const items: AssetUseInItem[] = [];
  for (const type of withImages) {
    const byItem = new Map<string, AssetUseInItem>();
    for (const field of type.fields.filter((candidate) => candidate.type === 'image')) {
      const nodes = await allNodes(reader, {
        label: type.nodeLabel,
        where: [{ prop: field.name, op: 'eq', value: id }],
      });
      for (const node of nodes) {
        const use = byItem.get(node.id) ?? { type, itemId: node.id, fields: [], isRequired: false };
        use.fields.push(field.name);
        use.isRequired ||= field.required === true;
        byItem.set(node.id, use);
      }
    }
    items.push(...byItem.values());
  }
  const imageFields = new Map(
    withImages.map((type) => [
      type.name,
      type.fields.filter((field) => field.type === 'image').map((field) => field.name),
    ]),
  );
  const entries = (await allNodes(reader, { label: LIVE_ITEM_LABEL }))
    .map((node) => ({
      itemId: String(node.props.itemId),
      envId: String(node.props.envId),
      version: Number(node.props.version),
      type: String(node.props.type ?? typeOfId(String(node.props.itemId))),
    }))
    .filter((entry) => imageFields.has(entry.type));
  const live: AssetUseLive[] = [];
  for (let start = 0; start < entries.length; start += BATCH) {
    const batch = entries.slice(start, start + BATCH);
    const stored = new Map(
      (await reader.getNodes(batch.map((entry) => versionNodeId(entry.itemId, entry.version))))
        .filter((node) => node.labels.includes(VERSION_LABEL))
        .map((node) => [node.id, (node.props.fields as Record<string, unknown> | undefined) ?? {}]),
    );
    for (const entry of batch) {
      const fields =
        stored.get(versionNodeId(entry.itemId, entry.version)) ??
        (await getVersion(reader, entry.itemId, entry.version))?.fields ??
        {};
      if (imageFields.get(entry.type)!.some((field) => fields[field] === id)) {
        live.push({ itemId: entry.itemId, envId: entry.envId, version: entry.version });
      }
    }
  }
  return { items, live };
}

/**
 * What holds asset `id`: items whose image fields show it (a cascade clears those fields,
 * unless one is required) and items whose live version shows it (no cascade: publish a
 * version without it, or unpublish, first).
 */
export function assetHolders(uses: { items: AssetUseInItem[]; live: AssetUseLive[] }): Holder[] {
  return [
    ...uses.items.map((use) => ({
      kind: 'item',
      id: use.itemId,
      detail: `shows it in ${use.fields.map((field) => `\`${field}\``).join(', ')}${use.isRequired ? ' (required)' : ''}`,
      cascades: !use.isRequired,
    })),
    ...uses.live.map((use) => ({
      kind: 'item',
      id: use.itemId,
      detail: `its version ${use.version}, live in ${use.envId}, shows it`,
      cascades: false,
    })),
  ];
}
