import type { BuildManifest, ManifestArtifact } from '@trelliscms/core';
import type { SortedList } from '../plan/list-index';
import type { BuildPlan } from '../plan/plan-artifacts';
import {
  type BuildState,
  type EdgeList,
  type ItemEntry,
  indexArtifact,
  indexManifest,
  isPageKey,
  type SearchUpdate,
  unindexArtifact,
} from './build-cache';

/** The cache's state after a committed build: the prior one brought up to date, or a new one. */
export function nextState(params: {
  extending: BuildState | null;
  manifest: BuildManifest;
  env: string;
  globalHash: string;
  graphHash: string;
  /** the snapshot's edges at this build (the extended state's list when they are the same) */
  edges: EdgeList;
  items: Map<string, ItemEntry>;
  templateHashes: Map<string, string>;
  /** the list results computed or confirmed by this build (`ListIndex.current`) */
  lists: ReadonlyMap<string, SortedList>;
  changedTypes: ReadonlySet<string>;
  fresh: readonly ManifestArtifact[];
  /** prior artifacts carried into `manifest` (besides pages, which are carried by default) */
  extraCarried: readonly ManifestArtifact[];
  /** keys of prior pages that are not planned any more (or moved) */
  structural: readonly string[];
  search: SearchUpdate | null;
  plan: BuildPlan;
  templatesKey: string;
}): BuildState {
  const { extending, manifest, fresh } = params;
  let indexed: Pick<BuildState, 'byKey' | 'fileHash' | 'dependents' | 'queries' | 'pages' | 'extraKeys'>;
  if (extending) {
    // In place: the prior state is not used again once a build built on it is committed.
    const { byKey, fileHash, extraKeys } = extending;
    let pages = extending.pages;
    const freshKeys = new Set(fresh.map((a) => a.key));
    const keptExtras = new Set(params.extraCarried.map((a) => a.key));
    const drop = (key: string) => {
      const old = byKey.get(key);
      if (!old) return;
      unindexArtifact(extending, old);
      byKey.delete(key);
      if (fileHash.get(old.file) === old.hash) fileHash.delete(old.file);
      if (isPageKey(key)) pages--;
      else extraKeys.delete(key);
    };
    for (const key of params.structural) if (!freshKeys.has(key)) drop(key);
    for (const key of [...extraKeys]) if (!freshKeys.has(key) && !keptExtras.has(key)) drop(key);
    for (const artifact of fresh) drop(artifact.key);
    for (const artifact of fresh) {
      indexArtifact(extending, artifact);
      byKey.set(artifact.key, artifact);
      fileHash.set(artifact.file, artifact.hash);
      if (isPageKey(artifact.key)) pages++;
      else extraKeys.add(artifact.key);
    }
    indexed = {
      byKey,
      fileHash,
      dependents: extending.dependents,
      queries: extending.queries,
      pages,
      extraKeys,
    };
  } else indexed = indexManifest(manifest);
  const lists = new Map<string, SortedList>();
  if (extending) {
    for (const [key, list] of extending.lists) if (!params.changedTypes.has(list.type)) lists.set(key, list);
  }
  for (const [key, list] of params.lists) lists.set(key, list);
  let search: BuildState['search'] = null;
  const update = params.search;
  if (update?.kind === 'all') search = { docs: update.docs, members: update.members };
  else if (update?.kind === 'delta' && extending?.search) {
    search = extending.search;
    for (const [id, entry] of update.updates) {
      if (entry) search.docs.set(id, entry);
      else search.docs.delete(id);
    }
    for (const [shard, members] of update.members) search.members[shard] = members;
  }
  return {
    manifest,
    env: params.env,
    globalHash: params.globalHash,
    graphHash: params.graphHash,
    edges: params.edges,
    items: params.items,
    templates: params.templateHashes,
    ...indexed,
    lists,
    search,
    plan: { plan: params.plan, templatesKey: params.templatesKey },
  };
}
