import type { BuildManifest, DeployResult, ManifestArtifact } from '@trelliscms/core';
import { serveCheck } from '../deploy/serve-check';
import type { WriteSession } from '../deploy/types';
import type { WorkerArtifact } from '../render/worker-protocol';
import type { Changes } from './detect-changes';
import type { Emitted } from './emit';
import type { LoadedContent } from './load';
import type { BuildFile, DeploySettings } from './options';
import type { Planned } from './plan';
import type { Selection } from './select-work';

function byFile(a: { file: string }, b: { file: string }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/** `sorted` (by file) without the artifacts not in `keep`, with `fresh` merged in by file. */
function mergeByFile(
  sorted: readonly ManifestArtifact[],
  keep: ReadonlySet<ManifestArtifact>,
  fresh: ManifestArtifact[],
): ManifestArtifact[] {
  const added = [...fresh].sort(byFile);
  const out: ManifestArtifact[] = [];
  let j = 0;
  for (const artifact of sorted) {
    if (!keep.has(artifact)) continue;
    for (let next = added[j]; next !== undefined && next.file < artifact.file; next = added[++j])
      out.push(next);
    out.push(artifact);
  }
  for (; j < added.length; j++) {
    const next = added[j];
    if (next) out.push(next);
  }
  return out;
}

/** The files of a build that is not committed (a validate build, or one that failed), by file. */
export function uncommittedFiles(params: {
  results: readonly WorkerArtifact[];
  selection: Selection;
  emitted: Emitted;
}): BuildFile[] {
  const { results, selection, emitted } = params;
  const carried = selection.mode === 'incremental' ? selection.carried : [];
  return [
    ...results
      .filter((r) => r.error === undefined)
      .map((r) => ({ key: r.key, file: r.file, bytes: r.bytes })),
    ...carried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
    ...emitted.extraCarried.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
    ...emitted.extras.map((e) => ({ key: e.key, file: e.file, bytes: e.bytes })),
  ].sort(byFile);
}

/** A committed build: its manifest, the artifacts it rendered or made, and what deploying did. */
export interface Committed {
  manifest: BuildManifest;
  /** artifacts rendered or made by this build (not carried) */
  fresh: ManifestArtifact[];
  files: BuildFile[];
  deploy: DeployResult;
}

/**
 * Stage 7, commit: writes the emitted files through the session, carries the unchanged ones,
 * records the manifest and makes the new version live (unless `settings.activate` is false:
 * then the version is complete but the live one stays). `deploy` counts the files against the
 * live version either way.
 */
export async function commit(params: {
  settings: DeploySettings;
  session: WriteSession;
  content: LoadedContent;
  changes: Changes;
  planned: Planned;
  selection: Selection;
  results: readonly WorkerArtifact[];
  emitted: Emitted;
}): Promise<Committed> {
  const { settings, session, selection, results, emitted } = params;
  const { extras, extraCarried } = emitted;
  const incremental = selection.mode === 'incremental' ? selection : null;
  const extending = incremental?.extending ?? null;
  const carried = incremental?.carried ?? [];
  const removed = incremental?.removed ?? [];
  const { previous } = params.changes;
  settings.progress({ phase: 'deploy', done: 0, total: 1 });
  const deployStarted = performance.now();
  // emit wrote its files through the session as it made them; those it kept are written now
  for (const extra of extras) if (extra.content !== null) await session.writeFile(extra.file, extra.content);
  await session.carry([...carried, ...extraCarried].map((a) => a.file));
  const fresh: ManifestArtifact[] = [
    ...results.map((r) => ({ key: r.key, file: r.file, hash: r.hash, bytes: r.bytes, deps: r.deps })),
    ...extras.map((e) => ({
      key: e.key,
      file: e.file,
      hash: e.hash,
      bytes: e.bytes,
      deps: e.deps ?? { items: {}, templates: {}, queries: {} },
    })),
  ];
  const artifacts = extending
    ? mergeByFile(extending.manifest.artifacts, new Set([...carried, ...extraCarried]), fresh)
    : [...carried, ...extraCarried, ...fresh].sort(byFile);
  const manifest: BuildManifest = {
    format: 'trellis-build-manifest',
    version: 1,
    buildId: settings.buildId,
    env: settings.env,
    globalHash: params.content.globalHash,
    graphHash: params.planned.graphHash,
    createdAt: settings.now().toISOString(),
    ...(settings.auditHead ? { auditHead: settings.auditHead } : {}),
    artifacts,
  };
  let changed: ManifestArtifact[];
  let gone: string[];
  if (extending) {
    // Carried artifacts are the previous ones, unchanged: only fresh ones can differ.
    changed = fresh.filter((a) => extending.fileHash.get(a.file) !== a.hash);
    const freshFiles = new Set(fresh.map((a) => a.file));
    gone = removed.filter((file) => !freshFiles.has(file));
    const kept = new Set([...extraCarried, ...fresh].map((a) => a.key));
    for (const key of extending.extraKeys) {
      const artifact = extending.byKey.get(key);
      if (artifact && !kept.has(key) && !freshFiles.has(artifact.file) && !gone.includes(artifact.file))
        gone.push(artifact.file);
    }
  } else {
    const live = previous ?? (settings.mode === 'full' ? await settings.target.liveManifest() : null);
    const liveFiles = new Map((live?.artifacts ?? []).map((a) => [a.file, a.hash]));
    const newFiles = new Set(artifacts.map((a) => a.file));
    changed = artifacts.filter((a) => liveFiles.get(a.file) !== a.hash);
    gone = [...liveFiles.keys()].filter((file) => !newFiles.has(file));
    for (const file of removed) if (!gone.includes(file) && !newFiles.has(file)) gone.push(file);
  }
  const committed = await session.commit({
    manifest,
    removed: gone,
    base: extending?.manifest ?? previous,
    activate: settings.activate,
  });
  const deploy: DeployResult = {
    ok: true,
    bucket: committed.bucket,
    keyPrefix: committed.keyPrefix,
    publicUrl: params.content.snapshot.site.publicUrl ?? null,
    filesUploaded: changed.length,
    filesDeleted: gone.length,
    bytes: changed.reduce((sum, a) => sum + a.bytes, 0),
    durationMs: Math.round(performance.now() - deployStarted),
    serveCheck: null,
  };
  return {
    manifest,
    fresh,
    files: artifacts.map((a) => ({ key: a.key, file: a.file, bytes: a.bytes })),
    deploy,
  };
}

/** The deploy result with the probe of `serveCheckUrl` (a failed probe makes it not ok). */
export async function checkServed(deploy: DeployResult, url: string | null): Promise<DeployResult> {
  if (!url) return deploy;
  const check = await serveCheck(url);
  return { ...deploy, ok: deploy.ok && check.ok, serveCheck: check };
}
