import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BuildManifest, ManifestArtifact } from '@trelliscms/core';
import { rawDepsJson } from '../pipeline/raw-deps';

/** Artifacts per manifest shard (at least; at most {@link MAX_SHARDS} shards). */
const ARTIFACTS_PER_SHARD = 32;
const MAX_SHARDS = 1024;

/**
 * The manifest file as stored: the manifest's members except `artifacts`, and the names of the
 * shard files holding them (each a JSON array of artifacts, named by the hash of its content).
 */
interface StoredHeader extends Omit<BuildManifest, 'artifacts'> {
  shards: string[];
}

interface Layout {
  files: string[];
  groups: ManifestArtifact[][];
}

// The shards of manifests this process wrote or read: a manifest built on one of them
// serializes only the shards whose artifacts changed.
const layouts = new WeakMap<BuildManifest, Layout>();

function shardOf(key: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** What `JSON.stringify(artifact)` ends with when `deps` is its last member, given as 0. */
const DEPS_LAST = ',"deps":0}';

/**
 * `JSON.stringify(group)`, the same text, with dependencies held as JSON text
 * (`RawDeps`) copied in as they are instead of parsed and written again.
 */
function groupJson(group: readonly ManifestArtifact[]): string {
  let json = '[';
  for (let i = 0; i < group.length; i++) {
    const artifact = group[i]!;
    if (i > 0) json += ',';
    const raw = rawDepsJson(artifact.deps);
    if (raw !== null) {
      const rest = JSON.stringify({ ...artifact, deps: 0 });
      if (rest.endsWith(DEPS_LAST)) {
        json += `${rest.slice(0, -2)}${raw}}`;
        continue;
      }
    }
    json += JSON.stringify(artifact);
  }
  return `${json}]`;
}

function sameGroup(a: readonly ManifestArtifact[], b: readonly ManifestArtifact[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Writes a manifest: its artifacts in shard files under `shardDir` (content-addressed, so
 * versions share unchanged shards), then the header at `path` (written to a temporary name and
 * renamed, so a reader sees the old or the new manifest). When `base` is a manifest this
 * process wrote or read, shards holding the same artifact objects are not serialized again:
 * an incremental build writes about as much manifest as it changed. Returns the shard files
 * the manifest uses.
 */
export async function writeManifest(params: {
  path: string;
  shardDir: string;
  manifest: BuildManifest;
  base?: BuildManifest | null;
}): Promise<string[]> {
  const { path, shardDir, manifest } = params;
  const { artifacts, ...head } = manifest;
  const count = Math.max(1, Math.min(MAX_SHARDS, Math.ceil(artifacts.length / ARTIFACTS_PER_SHARD)));
  const groups: ManifestArtifact[][] = Array.from({ length: count }, () => []);
  for (const artifact of artifacts) groups[shardOf(artifact.key, count)]!.push(artifact);
  const base = params.base ? layouts.get(params.base) : undefined;
  const reuse = base && base.groups.length === count ? base : null;
  await mkdir(shardDir, { recursive: true });
  const files: string[] = [];
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const group = groups[i]!;
    if (reuse && sameGroup(group, reuse.groups[i])) {
      files.push(reuse.files[i]!);
      continue;
    }
    const json = groupJson(group);
    const file = `${createHash('sha256').update(json).digest('base64url').slice(0, 32)}.json`;
    writes.push(writeFile(join(shardDir, file), json));
    files.push(file);
    // a few writes in flight at once
    if (writes.length >= 16) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  const header: StoredHeader = { ...head, shards: files };
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(header));
  await rename(temp, path);
  layouts.set(manifest, { files, groups });
  return files;
}

/**
 * Reads a manifest written by {@link writeManifest} (or a single-file manifest of earlier
 * versions); null when there is none or it cannot be read. Artifacts come sorted by file.
 */
export async function readManifest(params: {
  path: string;
  shardDir: string;
}): Promise<BuildManifest | null> {
  let stored: StoredHeader | BuildManifest;
  try {
    stored = JSON.parse(await readFile(params.path, 'utf8')) as StoredHeader | BuildManifest;
  } catch {
    return null;
  }
  if ('artifacts' in stored && Array.isArray(stored.artifacts)) return stored;
  const { shards, ...head } = stored as StoredHeader;
  if (!Array.isArray(shards)) return null;
  try {
    const groups = await Promise.all(
      shards.map(
        async (file) => JSON.parse(await readFile(join(params.shardDir, file), 'utf8')) as ManifestArtifact[],
      ),
    );
    const artifacts = groups.flat().sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const manifest: BuildManifest = { ...head, artifacts };
    layouts.set(manifest, { files: shards, groups });
    return manifest;
  } catch {
    return null;
  }
}

/** Deletes shard files under `shardDir` that none of `keep` names (a folder target keeps one manifest). */
export async function pruneShards(params: { shardDir: string; keep: readonly string[] }): Promise<void> {
  const keep = new Set(params.keep);
  let names: string[] = [];
  try {
    names = await readdir(params.shardDir);
  } catch {
    return;
  }
  for (const name of names) if (!keep.has(name)) await rm(join(params.shardDir, name), { force: true });
}

/** The shard files of a manifest this process wrote or read; null for another manifest. */
export function shardFilesOf(manifest: BuildManifest): readonly string[] | null {
  return layouts.get(manifest)?.files ?? null;
}

/** The members of a stored manifest other than its artifacts (cheap: shards are not read). */
export async function readManifestHead(path: string): Promise<Omit<BuildManifest, 'artifacts'> | null> {
  try {
    const {
      artifacts: _artifacts,
      shards: _shards,
      ...head
    } = JSON.parse(await readFile(path, 'utf8')) as
      | (StoredHeader & { artifacts?: unknown })
      | (BuildManifest & { shards?: unknown });
    return head;
  } catch {
    return null;
  }
}

/** The file → hash pairs of some shards of a stored manifest (all of them for a single-file manifest). */
async function hashesOf(
  stored: StoredHeader | BuildManifest,
  shardDir: string,
  which: readonly number[] | null,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if ('artifacts' in stored && Array.isArray(stored.artifacts)) {
    for (const artifact of stored.artifacts) out.set(artifact.file, artifact.hash);
    return out;
  }
  const { shards } = stored as StoredHeader;
  const files = which ? which.map((i) => shards[i]!) : shards;
  const groups = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(join(shardDir, file), 'utf8')) as ManifestArtifact[]),
  );
  for (const group of groups) for (const artifact of group) out.set(artifact.file, artifact.hash);
  return out;
}

/**
 * The files two stored manifests (paths of their headers, shards in `shardDir`) do not hold
 * alike: a file one has and the other lacks, or has with another hash. Shards are
 * content-addressed and an artifact's shard depends only on its key and the shard count, so when
 * both have as many shards only the shards whose names differ are read: the cost follows what
 * changed between the two builds, not the size of the site. Null when either cannot be read.
 */
export async function differingFiles(params: {
  a: string;
  b: string;
  shardDir: string;
}): Promise<Set<string> | null> {
  try {
    const read = async (path: string) =>
      JSON.parse(await readFile(path, 'utf8')) as StoredHeader | BuildManifest;
    const [a, b] = await Promise.all([read(params.a), read(params.b)]);
    const shardsA = (a as StoredHeader).shards;
    const shardsB = (b as StoredHeader).shards;
    let which: number[] | null = null;
    if (Array.isArray(shardsA) && Array.isArray(shardsB) && shardsA.length === shardsB.length) {
      which = [];
      for (let i = 0; i < shardsA.length; i++) if (shardsA[i] !== shardsB[i]) which.push(i);
    }
    const [hashesA, hashesB] = await Promise.all([
      hashesOf(a, params.shardDir, which),
      hashesOf(b, params.shardDir, which),
    ]);
    const differ = new Set<string>();
    for (const [file, hash] of hashesA) if (hashesB.get(file) !== hash) differ.add(file);
    for (const [file, hash] of hashesB) if (hashesA.get(file) !== hash) differ.add(file);
    return differ;
  } catch {
    return null;
  }
}
