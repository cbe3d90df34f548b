import type { ArtifactDeps, DependencyReader, ManifestArtifact } from './artifact-deps';

/** A planned artifact of the current build: its key and the file it would be written to. */
export interface PlannedArtifact {
  key: string;
  file: string;
}

/** The outcome of incremental planning. */
export interface IncrementalPlan {
  /** keys of planned artifacts to render (new, moved, or with a changed dependency) */
  render: string[];
  /** previous artifacts carried over unchanged, by key */
  carry: ManifestArtifact[];
  /** files of the previous build that the current build no longer has */
  removed: string[];
}

/** True when any recorded dependency hash differs from the reader's current one. */
export function depsChanged(deps: ArtifactDeps, reader: DependencyReader): boolean {
  // for-in rather than Object.entries: this runs for every artifact of every incremental build
  for (const id in deps.items) {
    const recorded = deps.items[id]!;
    if (reader.itemHash(id, recorded) !== recorded) return true;
  }
  for (const name in deps.templates) if (reader.templateHash(name) !== deps.templates[name]) return true;
  for (const key in deps.queries) {
    const hash = deps.queries[key]!;
    if (reader.queryHash(key, hash) !== hash) return true;
  }
  return false;
}

/**
 * Build planning from the dependency graph: given the previous build's artifacts (with what
 * each read) and the current plan, decides which artifacts to render and which to carry over.
 * An artifact is carried only when it existed before at the same file and none of its
 * dependencies changed; previous files absent from the current plan are removed. Pure: the
 * reader answers the current hashes.
 */
export function impactedArtifacts(params: {
  previous: readonly ManifestArtifact[];
  planned: readonly PlannedArtifact[];
  reader: DependencyReader;
}): IncrementalPlan {
  const { previous, planned, reader } = params;
  const byKey = new Map(previous.map((artifact) => [artifact.key, artifact]));
  const render: string[] = [];
  const carry: ManifestArtifact[] = [];
  const plannedFiles = new Set<string>();
  for (const artifact of planned) {
    plannedFiles.add(artifact.file);
    const before = byKey.get(artifact.key);
    if (before && before.file === artifact.file && !depsChanged(before.deps, reader)) carry.push(before);
    else render.push(artifact.key);
  }
  const removed = previous.filter((artifact) => !plannedFiles.has(artifact.file)).map((a) => a.file);
  return { render, carry, removed };
}

/**
 * `auto` mode's choice: incremental when a previous manifest exists for the same global hash
 * and at most `threshold` (default 0.3) of the planned artifacts need rendering; else full.
 */
export function chooseBuildMode(params: {
  hasCompatiblePrevious: boolean;
  toRender: number;
  planned: number;
  threshold?: number;
}): 'full' | 'incremental' {
  const { hasCompatiblePrevious, toRender, planned, threshold = 0.3 } = params;
  if (!hasCompatiblePrevious || planned === 0) return 'full';
  return toRender / planned > threshold ? 'full' : 'incremental';
}
