import type { BuildManifest, DependencyReader, ManifestArtifact } from '@trelliscms/core';
import { chooseBuildMode, impactedArtifacts } from '@trelliscms/core/build';
import { type BuildState, isPageKey } from '../incremental/build-cache';
import { dependencyReader } from '../incremental/dependency-reader';
import { type Impact, impactedFromState } from '../incremental/impacted';
import type { ArtifactSpec } from '../plan/plan-artifacts';
import type { Changes } from './detect-changes';
import type { LoadedContent } from './load';
import type { BuildSettings } from './options';
import type { Planned } from './plan';

/**
 * Why a page renders:
 * - `full`: the build renders every page;
 * - `new`: the previous build had no page with this key;
 * - `moved`: the previous build had it at another file;
 * - `template-changed`: a template it was rendered with (or one that template includes) changed;
 * - `deps-changed`: an item it read, or the result of a query it ran, changed.
 */
export type SelectReason = 'full' | 'new' | 'moved' | 'template-changed' | 'deps-changed';

/** A page the build renders, and why. */
export interface SelectedPage {
  artifact: ArtifactSpec;
  reason: SelectReason;
  /**
   * for `deps-changed`, what changed first: `item-changed` (an item it read), `query-changed`
   * (the result of a `{% list %}`, `{% traverse %}` or `{% similar %}`), `collection:<name>`
   * (a site collection it read)
   */
  detail?: string;
}

/** What changed of a page's recorded items and queries (the first found): see {@link SelectedPage.detail}. */
export function changedDependency(before: ManifestArtifact, reader: DependencyReader): string {
  for (const id in before.deps.items) {
    const recorded = before.deps.items[id]!;
    if (reader.itemHash(id, recorded) !== recorded) return 'item-changed';
  }
  let query: string | null = null;
  for (const key in before.deps.queries) {
    const recorded = before.deps.queries[key]!;
    if (reader.queryHash(key, recorded) === recorded) continue;
    const collection = /"collection":"([^"]+)"/.exec(key)?.[1];
    if (collection) return `collection:${collection}`;
    query ??= 'query-changed';
  }
  return query ?? 'item-changed';
}

/** The reasons of the pages a build renders, counted (`deps-changed` by its detail). */
export function reasonCounts(work: readonly SelectedPage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const page of work) {
    const reason = page.detail ?? page.reason;
    counts[reason] = (counts[reason] ?? 0) + 1;
  }
  return counts;
}

/** Why a build renders every page. */
export type FullReason =
  /** `mode: 'full'` (or `validate`) */
  | 'asked'
  /** no previous build, or one for other settings, types, routes, transforms or environment */
  | 'no-compatible-previous'
  /** `mode: 'auto'` and more than the threshold of the pages changed */
  | 'auto-threshold';

/** A build that renders every planned page. */
export interface FullBuild {
  mode: 'full' | 'validate';
  why: FullReason;
  work: SelectedPage[];
}

/** A build that renders the changed pages and carries the others from the previous build. */
export interface IncrementalBuild {
  mode: 'incremental';
  /** the previous build's manifest (compatible: same global hash and environment) */
  previous: BuildManifest;
  /** the cache's state of that build, when the cache describes it: this build extends it */
  extending: BuildState | null;
  work: SelectedPage[];
  /** pages carried unchanged from the previous build */
  carried: ManifestArtifact[];
  /** files of the previous build's pages that are not planned any more */
  removed: string[];
  /** keys of pages that are new, moved or gone (known only when extending; else empty) */
  structural: string[];
}

export type Selection = FullBuild | IncrementalBuild;

/** Whether a template the page recorded has another hash now. */
function templateChanged(before: ManifestArtifact, reader: DependencyReader): boolean {
  for (const name in before.deps.templates) {
    if (reader.templateHash(name) !== before.deps.templates[name]) return true;
  }
  return false;
}

/** Why a page the incremental planning chose renders (`before`: the previous build's page with its key). */
export function reasonOf(
  artifact: ArtifactSpec,
  before: ManifestArtifact | undefined,
  reader: DependencyReader,
): SelectReason {
  if (!before) return 'new';
  if (before.file !== artifact.file) return 'moved';
  return templateChanged(before, reader) ? 'template-changed' : 'deps-changed';
}

function everyPage(params: { planned: Planned; mode: 'full' | 'validate'; why: FullReason }): FullBuild {
  const work = params.planned.plan.artifacts.map((artifact) => ({ artifact, reason: 'full' as const }));
  return { mode: params.mode, why: params.why, work };
}

/**
 * Stage 4, select work: which pages render, each with its reason, and which are carried. With
 * a compatible previous build, a page renders when it is new, moved, or something it recorded
 * changed; `auto` builds in full when more than the threshold of the pages would render.
 */
export function selectWork(params: {
  settings: BuildSettings;
  content: LoadedContent;
  changes: Changes;
  planned: Planned;
}): Selection {
  const { settings, content, changes, planned } = params;
  if (settings.mode === 'validate') return everyPage({ planned, mode: 'validate', why: 'asked' });
  const previous = changes.compatible;
  if (!previous) {
    return everyPage({
      planned,
      mode: 'full',
      why: settings.mode === 'full' ? 'asked' : 'no-compatible-previous',
    });
  }
  const { plan } = planned;
  const { tracked } = changes;
  const graphUnchanged = previous.graphHash === planned.graphHash;
  const reader = dependencyReader({
    source: content.source,
    urls: plan.urls,
    templateHashes: content.templateHashes,
    lists: tracked?.lists ?? null,
    graphUnchanged,
  });
  const prior = tracked?.prior ?? null;
  let impact: Impact;
  let before: ReadonlyMap<string, ManifestArtifact>;
  if (tracked && prior) {
    impact = impactedFromState({
      prior,
      planned: plan.artifacts,
      reader,
      depChanged: planned.depChanged,
      depTypes: planned.depTypes,
      templateHashes: content.templateHashes,
      graphUnchanged,
      lists: tracked.lists,
      urlTypes: planned.urlTypes,
      listQueries: tracked.cache.listQueries,
    });
    before = prior.byKey;
  } else {
    const pages = previous.artifacts.filter((a) => isPageKey(a.key));
    impact = { ...impactedArtifacts({ previous: pages, planned: plan.artifacts, reader }), structural: [] };
    before = new Map(pages.map((a) => [a.key, a]));
  }
  if (settings.mode === 'auto') {
    const chosen = chooseBuildMode({
      hasCompatiblePrevious: true,
      toRender: impact.render.length,
      planned: plan.artifacts.length,
      threshold: settings.autoThreshold,
    });
    if (chosen === 'full') return everyPage({ planned, mode: 'full', why: 'auto-threshold' });
  }
  const wanted = new Set(impact.render);
  const work: SelectedPage[] = [];
  for (const artifact of plan.artifacts) {
    if (!wanted.has(artifact.key)) continue;
    const was = before.get(artifact.key);
    const reason = reasonOf(artifact, was, reader);
    work.push(
      reason === 'deps-changed' && was
        ? { artifact, reason, detail: changedDependency(was, reader) }
        : { artifact, reason },
    );
  }
  return {
    mode: 'incremental',
    previous,
    extending: prior,
    work,
    carried: impact.carry,
    removed: impact.removed,
    structural: impact.structural,
  };
}
