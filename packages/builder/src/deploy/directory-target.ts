import { existsSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { TrellisError } from '@trelliscms/core';
import { folderWriter } from './folder-writer';
import { pruneShards, readManifestHead, readManifest as readStored, writeManifest } from './manifest-files';
import type {
  ActivateResult,
  DeployedVersion,
  DeployTarget,
  PruneParams,
  PruneResult,
  WriteSession,
} from './types';

const safeId = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The directory deploy target: each build is written to an immutable folder
 * `<root>/versions/<buildId>/`, and the symlink `<root>/current` points at the live one. Going
 * live and rolling back are one rename(2) of a fresh symlink over `current`, so a reader sees
 * either the old or the new version, never a mix. Manifests are kept in `<root>/manifests/`
 * (`<buildId>.json`, with their shards, shared between versions, in `shards/`).
 * Unchanged files of incremental builds are hard-linked from the live version (copied across
 * file systems). A commit with `activate: false` keeps the version folder and its manifest
 * without switching `current`; `activate(buildId)` switches to it later (as `rollback` does).
 */
export function createDirectoryTarget(options: { root: string }): DeployTarget {
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
      const staging = join(versionsDir, `.staging-${buildId}`);
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { recursive: true });
      await mkdir(manifestsDir, { recursive: true });
      const live = liveBuildId();
      return {
        writeFile: folderWriter(staging),
        async carry(files) {
          if (!live) return;
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
          await inBatches(files, async (file) => {
            const from = join(versionsDir, live, file);
            const to = join(staging, file);
            try {
              await link(from, to);
            } catch {
              await copyFile(from, to);
            }
          });
        },
        async commit({ manifest, base, activate = true }) {
          await writeManifest({
            path: join(manifestsDir, `${buildId}.json`),
            shardDir,
            manifest,
            base: base ?? cached,
          });
          cached = manifest;
          await rename(staging, final);
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
      for (const buildId of removed) {
        // The manifest first: a version folder without a manifest is still listed and pruned
        // next time; a manifest without its folder would name files that are gone.
        await rm(join(manifestsDir, `${buildId}.json`), { force: true });
        await rm(join(versionsDir, buildId), { recursive: true, force: true });
        if (cached?.buildId === buildId) cached = null;
      }
      if (removed.length > 0) await pruneShards({ shardDir, keep: await shardsInUse() });
      return { removed, kept: all.length - removed.length };
    },
  };
  return target;

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
