import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { TrellisError } from '@trelliscms/core/build';
import { folderWriter } from './folder-writer';
import { pruneShards, readManifest, readManifestHead, shardFilesOf, writeManifest } from './manifest-files';
import type { DeployTarget, WriteSession } from './types';

const MANIFEST = '.trellis/manifest.json';
const SHARDS = '.trellis/manifest';

/**
 * A plain output folder (`cms-build --out dir`): pages are written in place, files the new
 * build no longer has are deleted, files the builder never wrote are left alone. Not atomic and
 * no rollback; use the directory target for that. The manifest lives in `<dir>/.trellis/`
 * (`manifest.json` and its shards in `manifest/`). It keeps no versions, so it cannot build
 * ahead: `activate: false` is refused (`invalid_deploy_options`).
 */
export function createFolderTarget(options: { dir: string }): DeployTarget {
  if (typeof options?.dir !== 'string' || options.dir.trim() === '') {
    throw TrellisError.of('invalid_deploy_options', {
      target: 'folder',
      detail: '`dir` must be a non-empty path',
    });
  }
  const dir = resolve(options.dir);
  const manifestPath = join(dir, MANIFEST);
  const shardDir = join(dir, SHARDS);
  // The manifest this target last read or wrote, reused while the file is unchanged.
  let cached: { manifest: BuildManifest; stamp: string } | null = null;
  const refuseInactive = () =>
    TrellisError.of('invalid_deploy_options', {
      target: 'folder',
      detail:
        'it writes in place and keeps no versions, so a version cannot be built without going live (activate: false); use the directory target',
    });
  const stampOf = async () => {
    const info = await stat(manifestPath);
    return `${info.mtimeMs}:${info.size}`;
  };
  return {
    name: 'folder',
    capabilities: { atomic: false, rollback: false },
    liveDir: () => dir,
    async liveManifest() {
      try {
        const stamp = await stampOf();
        if (cached?.stamp === stamp) return cached.manifest;
        const manifest = await readManifest({ path: manifestPath, shardDir });
        if (manifest) cached = { manifest, stamp };
        return manifest;
      } catch {
        return null;
      }
    },
    async liveManifestHead() {
      try {
        if (cached?.stamp === (await stampOf())) return cached.manifest;
      } catch {
        return null;
      }
      return readManifestHead(manifestPath);
    },
    async open({ activate = true }): Promise<WriteSession> {
      if (!activate) throw refuseInactive();
      await mkdir(dir, { recursive: true });
      return {
        writeFile: folderWriter(dir),
        // pages are written in place: another thread may write them there itself
        pageFolder: dir,
        async carry() {},
        async commit({ manifest, removed, activate = true }) {
          if (!activate) throw refuseInactive();
          for (const file of removed) await rm(join(dir, file), { force: true });
          // the shards of the manifest this replaces, when known: the folder holds no others
          const before = cached ? shardFilesOf(cached.manifest) : null;
          const shards = await writeManifest({
            path: manifestPath,
            shardDir,
            manifest,
            base: cached?.manifest,
          });
          cached = { manifest, stamp: await stampOf() };
          if (before) {
            const keep = new Set(shards);
            await Promise.all(
              before
                .filter((file) => !keep.has(file))
                .map((file) => rm(join(shardDir, file), { force: true })),
            );
          } else await pruneShards({ shardDir, keep: shards });
          return { bucket: 'folder', keyPrefix: dir };
        },
        async abort() {},
      };
    },
  };
}
