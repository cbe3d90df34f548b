import type { DependencyReader, ManifestArtifact } from '@trelliscms/core';
import { depsChanged } from '@trelliscms/core/build';
import type { ListIndex } from '../plan/list-index';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { ListQuery } from '../source/content-source';
import { type BuildState, isPageKey } from './build-cache';

/** Which pages of an incremental build render, which are carried, and which files went. */
export interface Impact {
  /** keys of planned pages to render */
  render: string[];
  /** prior pages carried unchanged */
  carry: ManifestArtifact[];
  /** files of prior pages that are not planned any more */
  removed: string[];
  /** planned keys that are new or at another file than before, and keys of removed pages (page structure changes) */
  structural: string[];
}

const SAVED_QUERY_PREFIX = '{"kind":"query"';

/** The query of a recorded list query key (null when the key cannot be read), parsed once per cache. */
function listQueryOf(key: string, memo: Map<string, ListQuery | null>): ListQuery | null {
  let query = memo.get(key);
  if (query === undefined) {
    try {
      const parsed = (JSON.parse(key) as { query?: ListQuery }).query;
      query = parsed && typeof parsed.type === 'string' ? parsed : null;
    } catch {
      query = null;
    }
    if (memo.size > 50_000) memo.clear();
    memo.set(key, query);
  }
  return query;
}

/**
 * Incremental planning from the prior build's reverse index: only pages that read a changed
 * item or template, or ran a query whose result may have changed, have their recorded
 * dependencies compared; every other page of the prior build is carried as it is. Gives the
 * same answer as comparing every page (core's `impactedArtifacts`), because every page of the
 * prior manifest recorded the hashes the prior build's content had.
 */
export function impactedFromState(params: {
  prior: BuildState;
  planned: readonly ArtifactSpec[];
  reader: DependencyReader;
  depChanged: ReadonlySet<string>;
  depTypes: ReadonlySet<string>;
  templateHashes: ReadonlyMap<string, string>;
  graphUnchanged: boolean;
  lists: ListIndex;
  /** types of items whose URL changed without a content change */
  urlTypes: ReadonlySet<string>;
  /** parsed list query keys, kept by the build cache */
  listQueries: Map<string, ListQuery | null>;
}): Impact {
  const { prior, planned, reader, depChanged, depTypes, templateHashes, graphUnchanged, lists, urlTypes } =
    params;
  const candidates = new Set<string>();
  const addAll = (keys: ReadonlySet<string> | undefined) => {
    if (keys) for (const key of keys) candidates.add(key);
  };
  for (const id of depChanged) addAll(prior.dependents.get(`i\n${id}`));
  for (const [name, hash] of templateHashes) {
    if (prior.templates.get(name) !== hash) addAll(prior.dependents.get(`t\n${name}`));
  }
  for (const name of prior.templates.keys()) {
    if (!templateHashes.has(name)) addAll(prior.dependents.get(`t\n${name}`));
  }
  if (depTypes.size > 0) {
    for (const [key, keys] of prior.queries.list) {
      const query = listQueryOf(key, params.listQueries);
      if (query !== null && !depTypes.has(query.type)) continue;
      // a page of a list whose changed items stayed out of it (and no URL of the type changed) reads the same
      if (query !== null && !urlTypes.has(query.type) && !lists.pageMayDiffer(query)) continue;
      addAll(keys);
    }
  }
  if (!graphUnchanged) for (const keys of prior.queries.traverse.values()) addAll(keys);
  if (depChanged.size > 0) for (const keys of prior.queries.other.values()) addAll(keys);
  // a saved query that follows edges may change with the edges alone
  else if (!graphUnchanged) {
    for (const [key, keys] of prior.queries.other) if (key.startsWith(SAVED_QUERY_PREFIX)) addAll(keys);
  }
  const render: string[] = [];
  const carry: ManifestArtifact[] = [];
  const structural: string[] = [];
  // prior pages planned again at the same file: when that is all of them, none was removed
  let kept = 0;
  for (const artifact of planned) {
    const before = prior.byKey.get(artifact.key);
    if (!before || before.file !== artifact.file) {
      render.push(artifact.key);
      structural.push(artifact.key);
      continue;
    }
    kept++;
    if (candidates.has(artifact.key) && depsChanged(before.deps, reader)) render.push(artifact.key);
    else carry.push(before);
  }
  const removed: string[] = [];
  if (kept !== prior.pages) {
    const plannedFiles = new Set(planned.map((a) => a.file));
    for (const [key, artifact] of prior.byKey) {
      if (!isPageKey(key) || plannedFiles.has(artifact.file)) continue;
      removed.push(artifact.file);
      structural.push(key);
    }
  }
  return { render, carry, removed, structural };
}
