import { contentHash } from '@trelliscms/core';
import type { SnapshotItem } from '../snapshot/types';

const cache = new WeakMap<SnapshotItem, string>();

/**
 * The content hash of an item as a build dependency: the snapshot's `hash` when the item
 * carries one, else the hash of what a template can see of it. Publishing state is part of
 * it, so publishing to an environment invalidates that environment's pages.
 */
export function itemHash(item: SnapshotItem): string {
  let hash = cache.get(item);
  if (hash === undefined) {
    const base =
      item.hash ??
      contentHash({
        fields: item.fields,
        relationships: item.relationships ?? null,
        status: item.status ?? null,
        updatedAt: item.updatedAt ?? null,
        version: item.version ?? null,
      });
    hash = `${base}|${(item.publishedEnvs ?? []).join(',')}|${item.status ?? ''}`;
    cache.set(item, hash);
  }
  return hash;
}
