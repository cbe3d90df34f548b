import type { BuildManifest } from '@trelliscms/core';
import type { BuildCache, BuildState, ItemEntry } from '../incremental/build-cache';
import { sameEdges, setState, takePrebuilt } from '../incremental/build-cache';
import { ListIndex } from '../plan/list-index';
import { itemHash } from '../source/item-hash';
import { isVisibleIn } from '../source/snapshot-source';
import type { LoadedContent } from './load';
import type { BuildSettings } from './options';

/** What the build cache brings to a build (only builds given a cache have it). */
export interface Tracked {
  cache: BuildCache;
  /** the cache's state when it describes the previous build (then this build may extend it) */
  prior: BuildState | null;
  /** list query results, brought up to date from the prior build's */
  lists: ListIndex;
}

/** What changed since the previous build. */
export interface Changes {
  /** the previous build's manifest (incremental and auto builds), or null */
  previous: BuildManifest | null;
  /** `previous` when it was built for this environment with the same global hash (its pages may be carried), else null */
  compatible: BuildManifest | null;
  tracked: Tracked | null;
  /** visible items by id as the cache records them (empty without a cache) */
  items: Map<string, ItemEntry>;
  /** ids of items whose content, type or visibility changed since the prior build */
  contentChanged: Set<string>;
  /** types of those items (before and after) */
  changedTypes: Set<string>;
  /** an item appeared or went since the prior build */
  membershipChanged: boolean;
  /** the edges are the prior build's, edge by edge (false without a prior build) */
  edgesSame: boolean;
}

/** Whether a manifest head names this manifest (manifests are immutable per build id). */
function names(head: Omit<BuildManifest, 'artifacts'>, manifest: BuildManifest): boolean {
  return head.buildId === manifest.buildId && head.createdAt === manifest.createdAt;
}

/**
 * The previous manifest: the one given, else the target's live one (the cache's, when that is
 * still live). When the live version is one built ahead (`activate: false`) that the cache
 * kept, its state is made and becomes the cache's: the live version is the one it describes.
 */
async function previousManifest(
  settings: BuildSettings,
  cache: BuildCache | null,
): Promise<BuildManifest | null> {
  if (settings.mode !== 'incremental' && settings.mode !== 'auto') return null;
  if (settings.previous !== undefined) return settings.previous;
  const { target } = settings;
  const state = cache?.state ?? null;
  // The live build is the one the cache describes: its manifest need not be read again.
  const known = cache !== null && (state !== null || cache.prebuilt.size > 0);
  const head = known && target.liveManifestHead ? await target.liveManifestHead() : null;
  if (head && cache) {
    if (state && names(head, state.manifest)) return state.manifest;
    const ahead = takePrebuilt(cache, head);
    if (ahead) return ahead.manifest;
  }
  return (await target.liveManifest()) ?? null;
}

/** Stage 2, detect changes: finds the previous build and what changed since then. */
export async function detectChanges(settings: BuildSettings, content: LoadedContent): Promise<Changes> {
  const { env } = settings;
  const { cache } = settings;
  // (for any build, one not made live too: the states kept describe other transformed content)
  if (cache && cache.transformKey !== content.transformKey) {
    cache.routes.clear();
    cache.transformKey = content.transformKey;
    cache.prebuilt.clear();
    setState(cache, null);
  }
  const previous = await previousManifest(settings, cache);
  const state = cache?.state ?? null;
  const compatible =
    previous !== null && previous.globalHash === content.globalHash && previous.env === env ? previous : null;
  const prior =
    state &&
    compatible &&
    state.manifest === compatible &&
    state.env === env &&
    state.globalHash === content.globalHash
      ? state
      : null;

  // What changed since the prior build: content (hash, updatedAt, type, visibility).
  const items = new Map<string, ItemEntry>();
  const contentChanged = new Set<string>();
  const changedTypes = new Set<string>();
  let membershipChanged = false;
  if (cache) {
    let added = 0;
    for (const item of content.snapshot.items) {
      if (!isVisibleIn(item, env)) continue;
      const hash = itemHash(item);
      const updatedAt = item.updatedAt ?? null;
      const before = prior?.items.get(item.id);
      // an unchanged item keeps its entry (entries are replaced, never changed, once recorded)
      if (before && before.hash === hash && before.type === item.type && before.updatedAt === updatedAt) {
        items.set(item.id, before);
        continue;
      }
      if (!before && !items.has(item.id)) added++;
      items.set(item.id, { hash, type: item.type, updatedAt, url: before?.url ?? '' });
      if (!prior) continue;
      if (!before) membershipChanged = true;
      contentChanged.add(item.id);
      changedTypes.add(item.type);
      if (before) changedTypes.add(before.type);
    }
    // every prior item still here (each id met once): none went
    if (prior && items.size - added !== prior.items.size) {
      for (const [id, before] of prior.items) {
        if (items.has(id)) continue;
        membershipChanged = true;
        contentChanged.add(id);
        changedTypes.add(before.type);
      }
    }
  }
  const tracked: Tracked | null = cache
    ? {
        cache,
        prior,
        lists: new ListIndex({
          source: content.source,
          previous: prior?.lists,
          changed: contentChanged,
          changedTypes,
        }),
      }
    : null;
  return {
    previous,
    compatible,
    tracked,
    items,
    contentChanged,
    changedTypes,
    membershipChanged,
    edgesSame: prior !== null && sameEdges(prior.edges, content.snapshot.edges),
  };
}
