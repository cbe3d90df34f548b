import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildManifest, ManifestArtifact } from '@trelliscms/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RawDeps } from '../pipeline/raw-deps';
import { pruneShards, readManifest, readManifestHead, writeManifest } from './manifest-files';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-manifest-'));
  dirs.push(dir);
  return dir;
}

function artifact(n: number, hash = 'h'): ManifestArtifact {
  return {
    key: `item:post:${n}`,
    file: `posts/${String(n).padStart(4, '0')}/index.html`,
    hash,
    bytes: n,
    deps: { items: { [`post:${n}`]: `v${hash}` }, templates: { post: 't' }, queries: {} },
  };
}

function manifestOf(buildId: string, artifacts: ManifestArtifact[]): BuildManifest {
  return {
    format: 'trellis-build-manifest',
    version: 1,
    buildId,
    env: 'dev',
    globalHash: 'g',
    graphHash: 'e',
    createdAt: '2026-01-01T00:00:00.000Z',
    artifacts,
  };
}

describe('sharded manifests', () => {
  it('round-trip, and a manifest built on a written one serializes only the shards that changed', async () => {
    const dir = tempDir();
    const shardDir = join(dir, 'shards');
    const artifacts = Array.from({ length: 1000 }, (_, n) => artifact(n));
    const first = manifestOf('b1', artifacts);
    const firstShards = await writeManifest({ path: join(dir, 'b1.json'), shardDir, manifest: first });
    expect(firstShards.length).toBeGreaterThan(4);
    expect(await readManifest({ path: join(dir, 'b1.json'), shardDir })).toEqual(first);

    // one artifact replaced: every other shard is the same file
    const second = manifestOf(
      'b2',
      artifacts.map((a, n) => (n === 500 ? artifact(500, 'changed') : a)),
    );
    const secondShards = await writeManifest({
      path: join(dir, 'b2.json'),
      shardDir,
      manifest: second,
      base: first,
    });
    expect(secondShards.filter((file) => !firstShards.includes(file))).toHaveLength(1);
    const read = await readManifest({ path: join(dir, 'b2.json'), shardDir });
    expect(read).toEqual(second);
    expect(read?.artifacts.find((a) => a.key === 'item:post:500')?.hash).toBe('changed');
    // the earlier version still reads (its shards are kept)
    expect(await readManifest({ path: join(dir, 'b1.json'), shardDir })).toEqual(first);
    expect(await readManifestHead(join(dir, 'b2.json'))).toMatchObject({
      buildId: 'b2',
      createdAt: first.createdAt,
    });

    // a manifest built on the one read back also reuses its shards
    const third = manifestOf(
      'b3',
      read!.artifacts.filter((a) => a.key !== 'item:post:7'),
    );
    const thirdShards = await writeManifest({
      path: join(dir, 'b3.json'),
      shardDir,
      manifest: third,
      base: read,
    });
    expect(thirdShards.filter((file) => !secondShards.includes(file))).toHaveLength(1);
    expect(await readManifest({ path: join(dir, 'b3.json'), shardDir })).toEqual(third);

    await pruneShards({ shardDir, keep: thirdShards });
    expect(readdirSync(shardDir).sort()).toEqual([...new Set(thirdShards)].sort());
  });

  it('writes dependencies held as JSON text (RawDeps) as the same bytes as parsed ones', async () => {
    const dir = tempDir();
    // integer-like keys, non-ASCII text, empty records; deps last (as a build makes them) and,
    // in every fifth artifact, not last (written through RawDeps.toJSON)
    const artifacts = Array.from({ length: 300 }, (_, n): ManifestArtifact => {
      const a = artifact(n, n % 2 ? 'h' : 'hé"\\');
      a.deps.items[String(n)] = `é${n}`;
      return n % 5 === 0 ? { deps: a.deps, key: a.key, file: a.file, hash: a.hash, bytes: a.bytes } : a;
    });
    const raw = artifacts.map((a) => ({ ...a, deps: new RawDeps(JSON.stringify(a.deps)) }));
    const parsed = await writeManifest({
      path: join(dir, 'a.json'),
      shardDir: join(dir, 'a'),
      manifest: manifestOf('b', artifacts),
    });
    const text = await writeManifest({
      path: join(dir, 'b.json'),
      shardDir: join(dir, 'b'),
      manifest: manifestOf('b', raw),
    });
    expect(text).toEqual(parsed);
    for (const file of parsed)
      expect(readFileSync(join(dir, 'b', file), 'utf8')).toBe(readFileSync(join(dir, 'a', file), 'utf8'));
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe(readFileSync(join(dir, 'a.json'), 'utf8'));
    // read back, they are plain dependencies again
    expect(await readManifest({ path: join(dir, 'b.json'), shardDir: join(dir, 'b') })).toEqual(
      manifestOf(
        'b',
        [...artifacts].sort((x, y) => (x.file < y.file ? -1 : 1)).map((a) => ({ ...a })),
      ),
    );
  });

  it('reads a single-file manifest of earlier versions, and null for a missing or broken one', async () => {
    const dir = tempDir();
    const old = manifestOf('b0', [artifact(1), artifact(2)]);
    writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
    expect(await readManifest({ path: join(dir, 'old.json'), shardDir: join(dir, 'shards') })).toEqual(old);
    expect(await readManifest({ path: join(dir, 'none.json'), shardDir: dir })).toBeNull();
    writeFileSync(
      join(dir, 'broken.json'),
      JSON.stringify({ ...old, artifacts: undefined, shards: ['gone.json'] }),
    );
    expect(await readManifest({ path: join(dir, 'broken.json'), shardDir: join(dir, 'shards') })).toBeNull();
  });
});
