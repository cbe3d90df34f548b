import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildManifest } from '@trelliscms/core';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/temp-dir';
import { createDirectoryTarget } from './directory-target';
import { createFolderTarget } from './folder-target';

const PAGE = '<!doctype html><p>hello</p>\n';

function manifestOf(buildId: string, files: string[]): BuildManifest {
  return {
    format: 'trellis-build-manifest',
    version: 1,
    buildId,
    env: 'dev',
    globalHash: 'g',
    graphHash: 'h',
    createdAt: new Date(0).toISOString(),
    artifacts: files.map((file) => ({
      key: `file:${file}`,
      file,
      hash: `hash-of-${file}`,
      bytes: 1,
      deps: { items: {}, templates: {}, queries: {} },
    })),
  };
}

describe('write sessions', () => {
  it('write a page through the directory target, live once committed', async () => {
    const root = tempDir('session-dir');
    const target = createDirectoryTarget({ root });
    const session = await target.open({ buildId: 'b1' });
    await session.writeFile('blog/hello/index.html', PAGE);
    await session.writeFile('sitemap.xml', new TextEncoder().encode('<urlset/>'));
    expect(existsSync(join(root, 'current'))).toBe(false);
    await session.commit({
      manifest: manifestOf('b1', ['blog/hello/index.html', 'sitemap.xml']),
      removed: [],
    });
    expect(readFileSync(join(root, 'current', 'blog/hello/index.html'), 'utf8')).toBe(PAGE);
    expect(readFileSync(join(root, 'current', 'sitemap.xml'), 'utf8')).toBe('<urlset/>');
    expect((await target.liveManifest())?.buildId).toBe('b1');
  });

  it('leave the live pointer untouched when aborted, carrying nothing of the aborted version', async () => {
    const root = tempDir('session-abort');
    const target = createDirectoryTarget({ root });
    const first = await target.open({ buildId: 'b1' });
    await first.writeFile('index.html', PAGE);
    await first.commit({ manifest: manifestOf('b1', ['index.html']), removed: [] });
    const pointer = readlinkSync(join(root, 'current'));

    const second = await target.open({ buildId: 'b2' });
    await second.writeFile('index.html', 'replaced');
    await second.carry(['index.html']);
    await second.abort();
    expect(readlinkSync(join(root, 'current'))).toBe(pointer);
    expect(readFileSync(join(root, 'current', 'index.html'), 'utf8')).toBe(PAGE);
    expect(readdirSync(join(root, 'versions'))).toEqual(['b1']);
    expect((await target.liveManifest())?.buildId).toBe('b1');
  });

  it('write a page through the folder target, in place, and delete the files the new version lost', async () => {
    const dir = tempDir('session-folder');
    const target = createFolderTarget({ dir });
    const first = await target.open({ buildId: 'b1' });
    await first.writeFile('blog/hello/index.html', PAGE);
    await first.writeFile('old.html', PAGE);
    await first.commit({ manifest: manifestOf('b1', ['blog/hello/index.html', 'old.html']), removed: [] });
    expect(readFileSync(join(dir, 'blog/hello/index.html'), 'utf8')).toBe(PAGE);

    const second = await target.open({ buildId: 'b2' });
    await second.writeFile('blog/hello/index.html', 'again');
    await second.commit({ manifest: manifestOf('b2', ['blog/hello/index.html']), removed: ['old.html'] });
    expect(readFileSync(join(dir, 'blog/hello/index.html'), 'utf8')).toBe('again');
    expect(existsSync(join(dir, 'old.html'))).toBe(false);
    expect((await target.liveManifest())?.buildId).toBe('b2');
  });

  it('keep a version committed with activate: false without making it live, until activate switches to it', async () => {
    const root = tempDir('session-ahead');
    const target = createDirectoryTarget({ root });
    const first = await target.open({ buildId: 'b1' });
    await first.writeFile('index.html', PAGE);
    await first.writeFile('about/index.html', 'about');
    await first.commit({ manifest: manifestOf('b1', ['about/index.html', 'index.html']), removed: [] });

    const ahead = await target.open({ buildId: 'b2', activate: false });
    await ahead.writeFile('index.html', 'the scheduled home page');
    await ahead.carry(['about/index.html']);
    const committed = await ahead.commit({
      manifest: manifestOf('b2', ['about/index.html', 'index.html']),
      removed: [],
      activate: false,
    });
    expect(committed).toEqual({ bucket: 'directory', keyPrefix: join('versions', 'b2') });
    // the live version is untouched
    expect(readlinkSync(join(root, 'current'))).toBe(join('versions', 'b1'));
    expect(target.liveBuildId!()).toBe('b1');
    expect(readFileSync(join(root, 'current', 'index.html'), 'utf8')).toBe(PAGE);
    expect((await target.liveManifest())?.buildId).toBe('b1');
    expect((await target.liveManifestHead!())?.buildId).toBe('b1');
    // the version is complete (carried files too) and its manifest recorded
    expect(readFileSync(join(root, 'versions', 'b2', 'index.html'), 'utf8')).toBe('the scheduled home page');
    expect(readFileSync(join(root, 'versions', 'b2', 'about/index.html'), 'utf8')).toBe('about');
    expect(existsSync(join(root, 'manifests', 'b2.json'))).toBe(true);
    expect((await target.versions!()).map((v) => [v.buildId, v.isLive]).sort()).toEqual([
      ['b1', true],
      ['b2', false],
    ]);

    // one switch makes it live, with its manifest
    expect(await target.activate!('b2')).toEqual({ buildId: 'b2', previousBuildId: 'b1' });
    expect(target.liveBuildId!()).toBe('b2');
    expect(readFileSync(join(root, 'current', 'index.html'), 'utf8')).toBe('the scheduled home page');
    const reopened = createDirectoryTarget({ root });
    expect(await reopened.liveManifest()).toEqual(manifestOf('b2', ['about/index.html', 'index.html']));
    // rolling back is the same switch
    expect(await target.rollback!('b1')).toEqual({ buildId: 'b1', previousBuildId: 'b2' });
    expect(reopened.liveBuildId!()).toBe('b1');
    await expect(target.activate!('b-unknown')).rejects.toMatchObject({ code: 'build_version_not_found' });
    await expect(target.activate!('../b1')).rejects.toMatchObject({ code: 'build_version_not_found' });
  });

  it('make a version committed with activate: false live with the first activate when nothing was live', async () => {
    const root = tempDir('session-ahead-first');
    const target = createDirectoryTarget({ root });
    expect(target.liveBuildId!()).toBeNull();
    const session = await target.open({ buildId: 'b1', activate: false });
    await session.writeFile('index.html', PAGE);
    await session.commit({ manifest: manifestOf('b1', ['index.html']), removed: [], activate: false });
    expect(existsSync(join(root, 'current'))).toBe(false);
    expect(await target.liveManifest()).toBeNull();
    expect(await target.activate!('b1')).toEqual({ buildId: 'b1', previousBuildId: null });
    expect(readFileSync(join(root, 'current', 'index.html'), 'utf8')).toBe(PAGE);
  });

  it('refuse activate: false on the folder target, before anything is written', async () => {
    const dir = tempDir('session-folder-ahead');
    const target = createFolderTarget({ dir });
    expect(target.activate).toBeUndefined();
    const refused = {
      code: 'invalid_deploy_options',
      message: expect.stringMatching(/deploy target `folder` .*activate: false/),
    };
    await expect(target.open({ buildId: 'b1', activate: false })).rejects.toMatchObject(refused);
    expect(readdirSync(dir)).toEqual([]);
    // a session opened to go live cannot commit without going live either
    const session = await target.open({ buildId: 'b1' });
    await expect(
      session.commit({ manifest: manifestOf('b1', []), removed: [], activate: false }),
    ).rejects.toMatchObject(refused);
    expect(await target.liveManifest()).toBeNull();
  });
});
