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
});
