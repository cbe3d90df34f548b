import { forkState, keepPrebuilt } from '../incremental/build-cache';
import { nextState } from '../incremental/next-state';
import type { Committed } from './commit';
import type { Changes } from './detect-changes';
import type { Emitted } from './emit';
import type { LoadedContent } from './load';
import type { Planned } from './plan';
import type { Selection } from './select-work';

/**
 * Stage 8, update the cache: after a build committed live, the cache describes it (the prior
 * state brought up to date in place when this build extended it, else a new one). A build
 * committed without going live (`activate: false`) leaves the cache's state describing the
 * live version: its own state is made from a copy of the prior one and kept aside, for the
 * first build that finds this version live.
 */
export function updateCache(params: {
  /** the commit made the new version live */
  activate: boolean;
  content: LoadedContent;
  changes: Changes;
  planned: Planned;
  selection: Selection;
  emitted: Emitted;
  committed: Committed;
}): void {
  const { content, changes, planned, selection, emitted, committed } = params;
  const { tracked } = changes;
  if (!tracked) return;
  const incremental = selection.mode === 'incremental' ? selection : null;
  const prior = incremental?.extending ?? null;
  // nextState changes the state it extends in place: a version that is not live extends a copy
  const extending = prior && !params.activate ? forkState(prior) : prior;
  const state = nextState({
    extending,
    manifest: committed.manifest,
    env: committed.manifest.env,
    globalHash: content.globalHash,
    graphHash: planned.graphHash,
    edgesSame: changes.edgesSame,
    snapshot: content.snapshot,
    items: changes.items,
    templateHashes: content.templateHashes,
    lists: tracked.lists,
    changedTypes: changes.changedTypes,
    fresh: committed.fresh,
    extraCarried: emitted.extraCarried,
    structural: incremental?.structural ?? [],
    search: emitted.search,
    plan: planned.plan,
    templatesKey: planned.templatesKey,
  });
  if (params.activate) tracked.cache.state = state;
  else keepPrebuilt(tracked.cache, state);
}
