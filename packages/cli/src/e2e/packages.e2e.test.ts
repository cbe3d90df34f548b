import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_DIR, CORE_DIST, SDK_DIR, SDK_DIST } from './harness';

const exec = promisify(execFile);

interface PackedFile {
  path: string;
  mode: number;
}

/** The file list `npm pack` would publish for a package (a dry run; nothing is written). */
async function packedFiles(dir: string): Promise<PackedFile[]> {
  const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  const [pack] = JSON.parse(stdout) as { files: PackedFile[] }[];
  return pack!.files;
}

describe('published packages', { timeout: 60_000 }, () => {
  beforeAll(() => assertBuilt());

  it.each(['sdk', 'cli'])(
    '@trelliscms/%s publishes dist, its README and package.json, and no sources or tests',
    async (name) => {
      const dir = name === 'sdk' ? SDK_DIR : CLI_DIR;
      const paths = (await packedFiles(dir)).map((file) => file.path);
      expect(paths).toEqual(
        expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']),
      );
      expect(paths.filter((path) => !/^(dist\/|package\.json$|README\.md$|LICENSE$)/.test(path))).toEqual([]);
      expect(paths.filter((path) => /\.test\.|test-support|e2e/.test(path))).toEqual([]);
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      // pnpm publishes publishConfig.exports in place of exports, whose first condition
      // (@trelliscms/source) points the repository's packages at each other's sources
      const published = manifest.publishConfig.exports;
      expect(published['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
      expect(Object.keys(published['.'])[0]).toBe('types');
      expect(JSON.stringify(published)).not.toMatch(/src\//);
      expect(manifest.publishConfig.access).toBe('public');
    },
  );

  it('gives the cli an executable bin with a node shebang', async () => {
    const dir = CLI_DIR;
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ cms: './dist/cli.js' });
    const bin = (await packedFiles(dir)).find((file) => file.path === 'dist/cli.js');
    expect(bin).toBeDefined();
    expect(bin!.mode & 0o111).not.toBe(0);
    expect((await readFile(join(dir, 'dist', 'cli.js'), 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(
      true,
    );
  });

  it('keeps Node-only modules out of the SDK entry, so it runs in browsers', async () => {
    const code = await readFile(SDK_DIST, 'utf8');
    expect(code).not.toMatch(
      /from ["']node:|require\(["']node:|from ["'](fs|path|http|https|net|os|child_process)["']/,
    );
    const imports = [...code.matchAll(/\bfrom\s*["']([^"'.][^"']*)["']/g)].map((match) => match[1]);
    expect(new Set(imports)).toEqual(new Set(['ky', '@trelliscms/core', 'zod']));
    // The SDK parses answers with core's schemas at run time, so core must be browser-safe too.
    const core = await readFile(CORE_DIST, 'utf8');
    expect(core).not.toMatch(
      /from ["']node:|require\(["']node:|from ["'](fs|path|http|https|net|os|child_process)["']/,
    );
  });
});
