import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/temp-dir';
import { createDirectoryTarget } from './directory-target';
import type { DeployTarget } from './types';

function manifestOf(buildId: string, createdAt: number, pages: Record<string, string>): BuildManifest {
  return {
    format: 'trellis-build-manifest',
    version: 1,
    buildId,
    env: 'dev',
    globalHash: 'g',
    graphHash: 'h',
    createdAt: new Date(createdAt).toISOString(),
    artifacts: Object.entries(pages).map(([file, body]) => ({
      key: `file:${file}`,
      file,
      hash: `hash-of-${body}`,
      bytes: body.length,
      deps: { items: {}, templates: {}, queries: {} },
    })),
  };
}

/** Commits a version whose one page says `body`; `activate` false keeps the live one live. */
async function commit(target: DeployTarget, buildId: string, at: number, activate = true): Promise<void> {
  const body = `<p>${buildId}</p>`;
  const session = await target.open({ buildId, activate });
  await session.writeFile('index.html', body);
  await session.commit({ manifest: manifestOf(buildId, at, { 'index.html': body }), removed: [], activate });
}

describe('directory target: prune', () => {
  it('keeps the newest versions, the live one and the protected ones, and removes the rest with their manifests', async () => {
    const root = tempDir('prune');
    const target = createDirectoryTarget({ root });
    for (let n = 1; n <= 6; n++) await commit(target, `b${n}`, n * 1000);
    // b2 live again (a rollback), b7 prebuilt and waiting for its switch.
    await target.activate!('b2');
    await commit(target, 'b7', 7000, false);

    const result = await target.prune!({ keep: 2, protect: new Set(['b4']) });

    expect(result.removed).toEqual(['b1', 'b3', 'b5']);
    expect(result.kept).toBe(4);
    expect(readdirSync(join(root, 'versions')).sort()).toEqual(['.spare-b5', 'b2', 'b4', 'b6', 'b7']);
    expect(existsSync(join(root, 'manifests', 'b1.json'))).toBe(false);
    // the newest one removed is no version any more, but kept as the spare the next build recycles
    expect(existsSync(join(root, 'manifests', 'b5.json'))).toBe(false);
    expect(existsSync(join(root, 'manifests', '.spare-b5.json'))).toBe(true);
    expect((await target.versions!()).map((v) => v.buildId)).not.toContain('.spare-b5');
    await expect(target.activate!('.spare-b5')).rejects.toMatchObject({ code: 'build_version_not_found' });
    expect(readFileSync(join(root, 'current', 'index.html'), 'utf8')).toBe('<p>b2</p>');
    // What is left still reads back whole: its shards were kept.
    for (const buildId of ['b2', 'b4', 'b6', 'b7']) {
      const next = createDirectoryTarget({ root });
      await next.activate!(buildId);
      expect((await next.liveManifest())?.artifacts.map((a) => a.hash)).toEqual([
        `hash-of-<p>${buildId}</p>`,
      ]);
    }
  });

  it('deletes the manifest shards no remaining manifest names', async () => {
    const root = tempDir('prune-shards');
    const target = createDirectoryTarget({ root });
    for (let n = 1; n <= 4; n++) await commit(target, `b${n}`, n * 1000);
    const before = readdirSync(join(root, 'manifests', 'shards')).length;
    expect(before).toBeGreaterThanOrEqual(4);

    await target.prune!({ keep: 1 });

    expect(readdirSync(join(root, 'versions'))).toEqual(['.spare-b3', 'b4']);
    // the live version's shard and the spare's (b1 and b2 are gone)
    expect(readdirSync(join(root, 'manifests', 'shards'))).toHaveLength(2);
    expect((await createDirectoryTarget({ root }).liveManifest())?.buildId).toBe('b4');
  });

  it('removes nothing when every version is still wanted', async () => {
    const root = tempDir('prune-none');
    const target = createDirectoryTarget({ root });
    await commit(target, 'b1', 1000);
    await commit(target, 'b2', 2000);
    expect(await target.prune!({ keep: 5 })).toEqual({ removed: [], kept: 2 });
    expect(readdirSync(join(root, 'versions')).sort()).toEqual(['b1', 'b2']);
  });
});
