import { nextState } from '../incremental/next-state';
import type { Committed } from './commit';
import type { Changes } from './detect-changes';
import type { Emitted } from './emit';
import type { LoadedContent } from './load';
import type { Planned } from './plan';
import type { Selection } from './select-work';

/**
 * Stage 8, update the cache: after a committed build, the cache describes it (the prior
 * state brought up to date in place when this build extended it, else a new one).
 */
export function updateCache(params: {
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
  tracked.cache.state = nextState({
    extending: incremental?.extending ?? null,
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
}
