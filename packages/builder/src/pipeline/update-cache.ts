import { edgeListOf, keepPrebuilt, setState } from '../incremental/build-cache';
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
 * live version and is kept aside: the first build that finds this version live makes its state
 * then, exactly as this one would have (see `takePrebuilt`).
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
  const extending = incremental?.extending ?? null;
  // What the state is made from, taken now: the caller may change its snapshot afterwards.
  const inputs = {
    extending,
    manifest: committed.manifest,
    env: committed.manifest.env,
    globalHash: content.globalHash,
    graphHash: planned.graphHash,
    edges: extending && changes.edgesSame ? extending.edges : edgeListOf(content.snapshot.edges),
    items: changes.items,
    templateHashes: content.templateHashes,
    lists: tracked.lists.current,
    changedTypes: changes.changedTypes,
    fresh: committed.fresh,
    extraCarried: emitted.extraCarried,
    structural: incremental?.structural ?? [],
    search: emitted.search,
    plan: planned.plan,
    templatesKey: planned.templatesKey,
  };
  if (params.activate) setState(tracked.cache, nextState(inputs));
  else
    keepPrebuilt(tracked.cache, {
      manifest: committed.manifest,
      base: extending,
      make: () => nextState(inputs),
    });
}
