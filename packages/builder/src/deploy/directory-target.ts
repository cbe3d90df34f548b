import { existsSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import {
  copyFile,
  link,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { TrellisError } from '@trelliscms/core/build';
import { folderWriter } from './folder-writer';
import {
  differingFiles,
  pruneShards,
  readManifestHead,
  readManifest as readStored,
  writeManifest,
} from './manifest-files';
import type {
  ActivateResult,
  DeployedVersion,
  DeployTarget,
  PruneParams,
  PruneResult,
  WriteSession,
} from './types';

const safeId = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Folder-name prefixes under `versions/` that are never versions (ids start with a letter or digit). */
const SPARE = '.spare-';
const TRASH = '.trash-';
const STAGING = '.staging-';

/**
 * The steps of the directory target a test can fail between (`hooks.step` throws): the folders
 * are then left as a crash at that point would leave them.
 */
export type DirectoryStep =
  | 'open:spare-compared'
  | 'open:spare-taken'
  | 'commit:stale-removed'
  | 'commit:manifest-written'
  | 'commit:version-renamed'
  | 'prune:manifest-moved'
  | 'prune:spare-moved';

/**
 * The directory deploy target: each build is written to an immutable folder
 * `<root>/versions/<buildId>/`, and the symlink `<root>/current` points at the live one. Going
 * live and rolling back are one rename(2) of a fresh symlink over `current`, so a reader sees
 * either the old or the new version, never a mix. Manifests are kept in `<root>/manifests/`
 * (`<buildId>.json`, with their shards, shared between versions, in `shards/`).
 * A commit with `activate: false` keeps the version folder and its manifest without switching
 * `current`; `activate(buildId)` switches to it later (as `rollback` does).
 *
 * **What a new version costs: recycled version folders.** Every version folder is a complete
 * tree (what `current` points at is what nginx, the server's `/sites/<slug>/<env>/` route and
 * previews serve, with no indirection), so making one from nothing costs a directory entry per
 * file: carrying 10,000 unchanged pages by hard links took ~0.8 s of a one-page edit, and
 * `prune` deleting an old version cost as much again. Instead, `prune` does not delete the
 * newest version it removes: its manifest becomes `manifests/.spare-<id>.json` and its folder
 * `versions/.spare-<id>/` (no longer a version: not listed, not activable). The next `open`
 * takes that spare as its staging folder (one rename) and brings it up to date with only the
 * files where the spare and the live version differ — found by comparing the two manifests
 * shard by shard, reading only the shards whose content-addressed names differ — plus what the
 * build writes; files the new version lacks are unlinked. With a retention of K versions the
 * spare is K builds old, so a one-item edit touches the files changed in those K builds: the
 * cost follows what changed, not the number of pages. Without a spare (fewer versions than the
 * retention, or no pruning at all: every kept version is a full tree) unchanged files are
 * hard-linked from the live version as before (copied across file systems).
 *
 * Why this rather than the alternatives: an A/B pair of folders swapped in place would mutate a
 * folder that was a version (no longer immutable, rollback beyond the previous build would need
 * a copy first, and builds made ahead with `activate: false` would hold one of the two); symlinked
 * subtrees or a content-addressed store still need one entry per page in every changed directory
 * (`blog/` holds every post), and a chain of symlinks breaks when an old version is pruned.
 * Recycling only what `prune` gives up keeps every promise of the layout: kept versions are never
 * written to, rollback to any kept one is one pointer swap, and the live one is never pruned.
 *
 * Files in a recycled folder may share inodes with other versions (hard links): they are never
 * written in place, always unlinked and made anew. Crash safety: the staging folder is never
 * served; a spare is taken by one atomic rename (two sessions cannot both get it, and `prune`
 * disposes of an old spare by renaming it to `.trash-*` first); a crash leaves at worst a
 * `.staging-*`, `.trash-*` or spare manifest without its folder, which the next `prune`
 * removes, and `current` still names a complete version.
 */
export function createDirectoryTarget(options: {
  root: string;
  /** for tests: called between steps; throwing leaves the folders as a crash there would */
  hooks?: { step?: (step: DirectoryStep) => void };
}): DeployTarget {
  if (typeof options?.root !== 'string' || options.root.trim() === '') {
    throw TrellisError.of('invalid_deploy_options', {
      target: 'directory',
      detail: '`root` must be a non-empty path',
    });
  }
  const root = resolve(options.root);
  const versionsDir = join(root, 'versions');
  const manifestsDir = join(root, 'manifests');
  const shardDir = join(manifestsDir, 'shards');
  const pointer = join(root, 'current');
  const step = (name: DirectoryStep) => options.hooks?.step?.(name);

  const liveBuildId = (): string | null => {
    try {
      return readlinkSync(pointer).split(/[\\/]/).pop() ?? null;
    } catch {
      return null;
    }
  };

  const swap = (buildId: string) => {
    const temp = join(root, `.current-${process.pid}-${Date.now()}`);
    symlinkSync(join('versions', buildId), temp);
    renameSync(temp, pointer);
  };

  /** One atomic switch of `current` to a committed version. */
  const activate = async (buildId: string): Promise<ActivateResult> => {
    if (!safeId.test(buildId) || !existsSync(join(versionsDir, buildId))) {
      throw TrellisError.of('build_version_not_found', { buildId });
    }
    const previous = liveBuildId();
    swap(buildId);
    return { buildId, previousBuildId: previous };
  };

  // Manifests are immutable per build id, so the last one read or written is reused.
  let cached: BuildManifest | null = null;
  const readManifest = async (buildId: string): Promise<BuildManifest | null> => {
    if (cached?.buildId === buildId) return cached;
    return readStored({ path: join(manifestsDir, `${buildId}.json`), shardDir });
  };

  const target: DeployTarget = {
    name: 'directory',
    capabilities: { atomic: true, rollback: true },
    liveDir: () => pointer,
    async liveManifest() {
      const live = liveBuildId();
      if (!live) return null;
      const manifest = await readManifest(live);
      if (manifest) cached = manifest;
      return manifest;
    },
    async liveManifestHead() {
      const live = liveBuildId();
      if (!live) return null;
      if (cached?.buildId === live) return cached;
      return readManifestHead(join(manifestsDir, `${live}.json`));
    },
    async open({ buildId }): Promise<WriteSession> {
      if (!safeId.test(buildId)) {
        throw TrellisError.of('invalid_deploy_options', {
          target: 'directory',
          detail: `bad build id "${buildId}"`,
        });
      }
      const final = join(versionsDir, buildId);
      if (existsSync(final)) {
        throw TrellisError.of('conflict', {
          detail: `version ${buildId} already exists; versions are immutable`,
        });
      }
      const staging = join(versionsDir, `${STAGING}${buildId}`);
      await rm(staging, { recursive: true, force: true });
      await mkdir(manifestsDir, { recursive: true });
      const live = liveBuildId();
      // The files where the recycled spare (now the staging folder) differs from the live
      // version; null: a fresh, empty staging folder.
      const differ = live ? await takeSpare(live, staging) : null;
      if (!differ) await mkdir(staging, { recursive: true });
      return {
        writeFile: differ ? replacingWriter(staging) : folderWriter(staging),
        async carry(files) {
          if (!live) return;
          if (differ) {
            // Only the carried files the spare does not hold as the live version does.
            await inBatches(
              files.filter((file) => differ.has(file)),
              async (file) => {
                const to = join(staging, file);
                await clear(to, staging);
                await linkOrCopy(join(versionsDir, live, file), to);
              },
            );
            return;
          }
          await linkAll(live, staging, files);
        },
        async commit({ manifest, removed, base, activate = true }) {
          if (differ) {
            // What the spare holds and the new version does not: files it had unlike the live
            // version, and live files this version lacks (`removed`, checked against the live
            // manifest: the base when it is the live one, as it is unless a build made ahead was
            // the base; else read).
            const keep = new Set(manifest.artifacts.map((artifact) => artifact.file));
            const stale = new Set<string>();
            for (const file of differ) if (!keep.has(file)) stale.add(file);
            for (const file of removed) if (!keep.has(file)) stale.add(file);
            const given = base ?? cached;
            const liveManifest = given?.buildId === live ? given : await readManifest(live!);
            if (!liveManifest) throw TrellisError.of('build_version_not_found', { buildId: live ?? '' });
            for (const artifact of liveManifest.artifacts)
              if (!keep.has(artifact.file)) stale.add(artifact.file);
            await inBatches([...stale], (file) => remove(join(staging, file), staging));
            step('commit:stale-removed');
          }
          await writeManifest({
            path: join(manifestsDir, `${buildId}.json`),
            shardDir,
            manifest,
            base: base ?? cached,
          });
          cached = manifest;
          step('commit:manifest-written');
          await rename(staging, final);
          step('commit:version-renamed');
          if (activate) swap(buildId);
          return { bucket: 'directory', keyPrefix: join('versions', buildId) };
        },
        async abort() {
          await rm(staging, { recursive: true, force: true });
        },
      };
    },
    liveBuildId,
    activate,
    rollback: activate,
    async versions(): Promise<DeployedVersion[]> {
      const live = liveBuildId();
      let names: string[] = [];
      try {
        names = (await readdir(versionsDir)).filter((name) => !name.startsWith('.'));
      } catch {
        return [];
      }
      const out: DeployedVersion[] = [];
      for (const name of names) {
        const head =
          cached?.buildId === name ? cached : await readManifestHead(join(manifestsDir, `${name}.json`));
        const created = head?.createdAt ?? (await stat(join(versionsDir, name))).mtime.toISOString();
        out.push({ buildId: name, isLive: name === live, createdAt: created });
      }
      return out.sort((a, b) => ((a.createdAt ?? '') < (b.createdAt ?? '') ? 1 : -1));
    },
    async prune({ keep, protect }: PruneParams): Promise<PruneResult> {
      const all = await target.versions!();
      const removed: string[] = [];
      all.forEach((version, index) => {
        if (version.isLive || index < keep || protect?.has(version.buildId)) return;
        removed.push(version.buildId);
      });
      removed.reverse();
      // The newest one removed becomes the spare the next build recycles (the nearest to the
      // live version: the fewest files to bring up to date); the others are deleted.
      const spare = removed.length > 0 ? removed[removed.length - 1]! : null;
      for (const buildId of removed) {
        if (cached?.buildId === buildId) cached = null;
        if (buildId === spare && (await keepAsSpare(buildId))) continue;
        // The manifest first: a version folder without a manifest is still listed and pruned
        // next time; a manifest without its folder would name files that are gone.
        await rm(join(manifestsDir, `${buildId}.json`), { force: true });
        await rm(join(versionsDir, buildId), { recursive: true, force: true });
      }
      await sweep();
      if (removed.length > 0) await pruneShards({ shardDir, keep: await shardsInUse() });
      return { removed, kept: all.length - removed.length };
    },
  };
  return target;

  /**
   * Makes the pruned version `buildId` the spare (false: it has no stored manifest, delete it).
   * Its manifest is renamed first: from then on it is no version, and a crash before its folder
   * follows leaves a folder without a manifest, deleted by the next prune.
   */
  async function keepAsSpare(buildId: string): Promise<boolean> {
    const header = join(manifestsDir, `${buildId}.json`);
    if (!(await readManifestHead(header))) return false;
    await disposeSpares();
    await rename(header, join(manifestsDir, `${SPARE}${buildId}.json`));
    step('prune:manifest-moved');
    await rename(join(versionsDir, buildId), join(versionsDir, `${SPARE}${buildId}`));
    step('prune:spare-moved');
    return true;
  }

  /** Deletes the spares there are: each folder renamed away first (a session may be taking it). */
  async function disposeSpares(): Promise<void> {
    for (const name of await namesIn(versionsDir)) {
      if (!name.startsWith(SPARE)) continue;
      const trash = join(versionsDir, `${TRASH}${name.slice(SPARE.length)}-${process.pid}-${Date.now()}`);
      try {
        await rename(join(versionsDir, name), trash);
      } catch {
        continue; // taken by a build meanwhile
      }
      await rm(join(manifestsDir, `${name}.json`), { force: true });
      await rm(trash, { recursive: true, force: true });
    }
  }

  /** Removes what a crash can leave: `.trash-*` folders, and spare manifests without their folder. */
  async function sweep(): Promise<void> {
    const folders = await namesIn(versionsDir);
    for (const name of folders)
      if (name.startsWith(TRASH)) await rm(join(versionsDir, name), { recursive: true, force: true });
    for (const name of await namesIn(manifestsDir)) {
      if (!name.startsWith(SPARE) || !name.endsWith('.json')) continue;
      if (!folders.includes(name.slice(0, -'.json'.length)))
        await rm(join(manifestsDir, name), { force: true });
    }
  }

  /**
   * Takes the spare as the staging folder of a new version (one rename) and returns the files
   * where it differs from the live version `live`; null when there is no usable spare.
   */
  async function takeSpare(live: string, staging: string): Promise<Set<string> | null> {
    const name = (await namesIn(versionsDir)).find((entry) => entry.startsWith(SPARE));
    if (!name) return null;
    const header = join(manifestsDir, `${name}.json`);
    const differ = await differingFiles({ a: header, b: join(manifestsDir, `${live}.json`), shardDir });
    if (!differ) return null;
    step('open:spare-compared');
    try {
      await rename(join(versionsDir, name), staging);
    } catch {
      return null; // another session took it, or prune disposed of it
    }
    step('open:spare-taken');
    await rm(header, { force: true });
    return differ;
  }

  /** Hard-links `files` of the version `live` into a fresh staging folder. */
  async function linkAll(live: string, staging: string, files: readonly string[]): Promise<void> {
    // Folders first (parents before children), then the links, many at a time: one
    // awaited syscall after another is what made carrying 10,000 pages slow.
    // Every folder once, parents before children, without recursive mkdir's extra checks.
    const dirs = new Set<string>();
    for (const file of files) {
      for (
        let dir = dirname(join(staging, file));
        dir.length > staging.length && !dirs.has(dir);
        dir = dirname(dir)
      )
        dirs.add(dir);
    }
    const byDepth = new Map<number, string[]>();
    for (const dir of dirs) {
      const depth = dir.split(sep).length;
      const level = byDepth.get(depth);
      if (level) level.push(dir);
      else byDepth.set(depth, [dir]);
    }
    for (const depth of [...byDepth.keys()].sort((a, b) => a - b)) {
      await inBatches(byDepth.get(depth)!, (dir) =>
        mkdir(dir).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        }),
      );
    }
    await inBatches(files, (file) => linkOrCopy(join(versionsDir, live, file), join(staging, file)));
  }

  /** The shard files the remaining manifest headers name. */
  async function shardsInUse(): Promise<string[]> {
    let headers: string[] = [];
    try {
      headers = (await readdir(manifestsDir)).filter((name) => name.endsWith('.json'));
    } catch {
      return [];
    }
    const used: string[] = [];
    for (const header of headers) {
      try {
        const stored = JSON.parse(await readFile(join(manifestsDir, header), 'utf8')) as { shards?: unknown };
        if (Array.isArray(stored.shards))
          used.push(...stored.shards.filter((s): s is string => typeof s === 'string'));
      } catch {
        // A header being written (temporary name) or unreadable: keep every shard this time.
        return readdir(shardDir).catch(() => []);
      }
    }
    return used;
  }
}

/** Runs `task` on every item, up to `limit` at a time. */
async function inBatches<T>(
  items: readonly T[],
  task: (item: T) => Promise<void>,
  limit = 64,
): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
}

/** The names in a folder; none when it does not exist. */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to);
  }
}

/** Makes `dir` (under `root`) a folder, replacing a file that stands where one of its folders goes. */
async function ensureDir(dir: string, root: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTDIR' && code !== 'EEXIST') throw error;
  }
  const parts = dir.slice(root.length + 1).split(sep);
  for (let at = root, i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!);
    const info = await stat(at).catch(() => null);
    if (info && !info.isDirectory()) await unlink(at);
  }
  await mkdir(dir, { recursive: true });
}

/**
 * Frees the path `file` of a recycled folder (under `root`) for a new file: what is there is
 * unlinked, never written in place, as it may be a hard link shared with a kept version.
 */
async function clear(file: string, root: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') await ensureDir(dirname(file), root);
    else if (code === 'EISDIR' || code === 'EPERM') await rm(file, { recursive: true, force: true });
    else throw error;
  }
}

/** Removes `file` from a recycled folder, and the folders it leaves empty (up to `root`). */
async function remove(file: string, root: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'EPERM') await rm(file, { recursive: true, force: true });
    else if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  for (let dir = dirname(file); dir.length > root.length; dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty (or gone)
    }
  }
}

/** The `writeFile` of a recycled staging folder: each file made anew (see {@link clear}). */
function replacingWriter(root: string): (path: string, data: string | Uint8Array) => Promise<void> {
  return async (path, data) => {
    const file = join(root, path);
    await clear(file, root);
    await writeFile(file, data);
  };
}
