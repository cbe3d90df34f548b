import type { BuildManifest, ManifestArtifact } from '@trelliscms/core';
import type { SearchDoc } from '../emit/search-index';
import type { SortedList } from '../plan/list-index';
import type { BuildPlan, RouteMemo } from '../plan/plan-artifacts';
import type { SnapshotEdge } from '../snapshot/types';
import type { ListQuery } from '../source/content-source';

/** What the cache knows of a visible item at the build it describes. */
export interface ItemEntry {
  /** `itemHash` of the item */
  hash: string;
  type: string;
  updatedAt: string | null;
  /** its page path, '' without a (non-stub) page */
  url: string;
}

/** A search document, with the dependency hash (`<item hash>|<url>`) it was made from. */
export type DocEntry = { dep: string; doc: SearchDoc; hash: string };

/** The search documents after a build: all of them, or the changes to the prior build's. */
export type SearchUpdate =
  | { kind: 'all'; docs: Map<string, DocEntry>; members: Array<Set<string>> }
  | { kind: 'delta'; updates: Map<string, DocEntry | null>; members: Map<number, Set<string>> };

/** Everything an incremental build reuses from the build that produced `manifest`. */
export interface BuildState {
  manifest: BuildManifest;
  env: string;
  globalHash: string;
  graphHash: string;
  /** the snapshot's edges at that build (compared to skip hashing the graph again) */
  edges: EdgeList;
  /** visible items by id */
  items: Map<string, ItemEntry>;
  /** enabled template name → content hash */
  templates: Map<string, string>;
  /** every artifact of `manifest` by key */
  byKey: Map<string, ManifestArtifact>;
  /** file → content hash of every artifact of `manifest` */
  fileHash: Map<string, string>;
  /** `i\n<id>` or `t\n<name>` → keys of the pages that read that item or template */
  dependents: Map<string, Set<string>>;
  /** query key → keys of the pages that ran that query, by kind of query */
  queries: QueryIndex;
  /** how many pages (`item:`, `route:`) `manifest` has */
  pages: number;
  /** full results of list queries, valid for this build's items */
  lists: Map<string, SortedList>;
  /** the search index's documents by item id, with the dependency hash (`<item hash>|<url>`) each was made from, and the ids in each shard; null without a search index */
  search: {
    docs: Map<string, DocEntry>;
    members: Array<Set<string>>;
  } | null;
  /** keys of the artifacts of `manifest` that are not pages */
  extraKeys: Set<string>;
  /** the plan of that build, and the `templatesKey` it was made with */
  plan: { plan: BuildPlan; templatesKey: string } | null;
}

/**
 * Per-build state kept between builds of one site and environment in one process (the server
 * keeps one per render pool), so an incremental build costs about what it renders: item
 * routes, listing orders, the reverse dependency index of the pages, search documents and the
 * previous manifest's files. The state is used only when the previous manifest is the one it
 * was recorded with (same build id and object), and only advances when a build is committed
 * live; anything else (a rollback, another process deploying, a failed build) falls back to
 * comparing every page's recorded dependencies, which is always correct. A build committed
 * without going live (`activate: false`) leaves the state as it is and is kept aside in
 * `prebuilt`: a build that finds that version live makes its state then, from the state it
 * was built on (when that is still the cache's state; else it compares every page).
 */
export class BuildCache {
  /** @internal the state of the last build committed live */
  state: BuildState | null = null;
  /**
   * @internal builds committed without going live, by build id, oldest first (at most
   * {@link MAX_PREBUILT_STATES}): each one's state is made when a build finds it live
   */
  readonly prebuilt = new Map<string, PrebuiltState>();
  /** @internal resolved item paths (keyed by content, valid across builds) */
  readonly routes: RouteMemo = new Map();
  /** @internal with build-time transforms, the templates they may render (a change clears the cache) */
  transformKey = '';
  /** @internal the query of each recorded list query key (null: not readable), parsed once */
  readonly listQueries = new Map<string, ListQuery | null>();
  /** @internal hashes of the fixed files a build emits (search.js, minisearch.js), by content */
  readonly fixedHashes = new Map<string, string>();

  /** Forgets everything (the next incremental build compares every page). */
  clear(): void {
    this.state = null;
    this.prebuilt.clear();
    this.routes.clear();
    this.transformKey = '';
    this.listQueries.clear();
    this.fixedHashes.clear();
  }
}

/**
 * A build committed without going live, whose state is made only when a build finds that
 * version live: the state it extended (`base`) brought up to date in place, as a live build
 * would have done, so building ahead costs the live state nothing until the switch.
 */
export interface PrebuiltState {
  /** the manifest the build recorded (what the state will describe) */
  manifest: BuildManifest;
  /** the state the build extended, or null (its state is made from its manifest alone) */
  base: BuildState | null;
  /** makes the state, changing `base` in place: valid only while `base` is the cache's state */
  make: () => BuildState;
}

/** Versions built ahead whose state a cache keeps (older ones are forgotten: a build after them compares every page). */
export const MAX_PREBUILT_STATES = 4;

/** Keeps a version built ahead, forgetting the oldest beyond {@link MAX_PREBUILT_STATES}. */
export function keepPrebuilt(cache: BuildCache, entry: PrebuiltState): void {
  const id = entry.manifest.buildId;
  cache.prebuilt.delete(id);
  cache.prebuilt.set(id, entry);
  for (const old of cache.prebuilt.keys()) {
    if (cache.prebuilt.size <= MAX_PREBUILT_STATES) break;
    cache.prebuilt.delete(old);
  }
}

/**
 * Makes `state` the cache's state, forgetting the versions built ahead on another state: the
 * state they extended is changed in place or is not the cache's any more, so they cannot be made.
 */
export function setState(cache: BuildCache, state: BuildState | null): void {
  cache.state = state;
  for (const [id, entry] of cache.prebuilt) {
    if (entry.base !== null && entry.base !== state) cache.prebuilt.delete(id);
  }
}

/**
 * The state of a version built ahead that is live now (`head` names it), made and set as the
 * cache's state; null when the cache kept none for it or it cannot be made any more.
 */
export function takePrebuilt(
  cache: BuildCache,
  head: Pick<BuildManifest, 'buildId' | 'createdAt'>,
): BuildState | null {
  const entry = cache.prebuilt.get(head.buildId);
  if (!entry || entry.manifest.createdAt !== head.createdAt) return null;
  cache.prebuilt.delete(head.buildId);
  if (entry.base !== null && entry.base !== cache.state) return null;
  const state = entry.make();
  setState(cache, state);
  return state;
}

/** Whether an artifact is a page (its dependencies are indexed). */
export function isPageKey(key: string): boolean {
  return key.startsWith('item:') || key.startsWith('route:');
}

function add(index: Map<string, Set<string>>, dep: string, key: string): void {
  const set = index.get(dep);
  if (set) set.add(key);
  else index.set(dep, new Set([key]));
}

function remove(index: Map<string, Set<string>>, dep: string, key: string): void {
  const set = index.get(dep);
  if (!set) return;
  set.delete(key);
  if (set.size === 0) index.delete(dep);
}

/** Pages by the queries they ran: `list` queries, `traverse` queries, and the others (`similar`). */
export interface QueryIndex {
  list: Map<string, Set<string>>;
  traverse: Map<string, Set<string>>;
  other: Map<string, Set<string>>;
}

type Index = Pick<BuildState, 'dependents' | 'queries'>;

function queryMap(index: QueryIndex, key: string): Map<string, Set<string>> {
  if (key.startsWith('{"kind":"list"')) return index.list;
  if (key.startsWith('{"kind":"traverse"')) return index.traverse;
  return index.other;
}

/** Records what a page read in the reverse index. */
export function indexArtifact(index: Index, artifact: ManifestArtifact): void {
  if (!isPageKey(artifact.key)) return;
  const { deps, key } = artifact;
  for (const id in deps.items) add(index.dependents, `i\n${id}`, key);
  for (const name in deps.templates) add(index.dependents, `t\n${name}`, key);
  for (const query in deps.queries) add(queryMap(index.queries, query), query, key);
}

/** Takes a page out of the reverse index. */
export function unindexArtifact(index: Index, artifact: ManifestArtifact): void {
  if (!isPageKey(artifact.key)) return;
  const { deps, key } = artifact;
  for (const id in deps.items) remove(index.dependents, `i\n${id}`, key);
  for (const name in deps.templates) remove(index.dependents, `t\n${name}`, key);
  for (const query in deps.queries) remove(queryMap(index.queries, query), query, key);
}

/** The reverse index and lookups of a whole manifest. */
export function indexManifest(
  manifest: BuildManifest,
): Pick<BuildState, 'byKey' | 'fileHash' | 'dependents' | 'queries' | 'pages' | 'extraKeys'> {
  const byKey = new Map<string, ManifestArtifact>();
  const fileHash = new Map<string, string>();
  const index: Index = {
    dependents: new Map(),
    queries: { list: new Map(), traverse: new Map(), other: new Map() },
  };
  let pages = 0;
  const extraKeys = new Set<string>();
  for (const artifact of manifest.artifacts) {
    byKey.set(artifact.key, artifact);
    fileHash.set(artifact.file, artifact.hash);
    if (isPageKey(artifact.key)) pages++;
    else extraKeys.add(artifact.key);
    indexArtifact(index, artifact);
  }
  return { byKey, fileHash, ...index, pages, extraKeys };
}

/** A copy of the ends and labels of a snapshot's edges (edges may be changed in place later). */
export interface EdgeList {
  from: string[];
  edge: string[];
  to: string[];
}

export function edgeListOf(edges: readonly SnapshotEdge[]): EdgeList {
  const list: EdgeList = {
    from: new Array(edges.length),
    edge: new Array(edges.length),
    to: new Array(edges.length),
  };
  for (let i = 0; i < edges.length; i++) {
    const edge = edges[i]!;
    list.from[i] = edge.from;
    list.edge[i] = edge.edge;
    list.to[i] = edge.to;
  }
  return list;
}

/** Whether a snapshot's edges are those of a list, edge by edge. */
export function sameEdges(list: EdgeList, edges: readonly SnapshotEdge[]): boolean {
  if (list.from.length !== edges.length) return false;
  for (let i = 0; i < edges.length; i++) {
    const edge = edges[i]!;
    if (edge.from !== list.from[i] || edge.to !== list.to[i] || edge.edge !== list.edge[i]) return false;
  }
  return true;
}
