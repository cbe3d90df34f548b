import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { build } from '../build';
import { createFolderTarget } from '../deploy/folder-target';
import { hashText } from './renderer';

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('render workers', () => {
  it('have every page on disk, as reported, when the build resolves', async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-worker-write-'));
    const snapshot = readFixtureSnapshot('blog');
    const result = await build({
      source: snapshot,
      target: createFolderTarget({ dir }),
      mode: 'full',
      workers: 2,
    });
    expect(result.ok).toBe(true);
    expect(result.rendered).toBeGreaterThan(5);
    for (const artifact of result.manifest!.artifacts) {
      const content = readFileSync(join(dir, artifact.file), 'utf8');
      expect(hashText(content)).toBe(artifact.hash);
    }
  });

  it('fail the build when a page cannot be written', async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-worker-write-'));
    // a file where the pages' folder should be
    writeFileSync(join(dir, 'blog'), 'not a folder');
    const result = await build({
      source: readFixtureSnapshot('blog'),
      target: createFolderTarget({ dir }),
      mode: 'full',
      workers: 2,
    });
    expect(result.ok).toBe(false);
    expect(result.errors).toContainEqual(
      expect.objectContaining({ code: 'build_stopped', message: expect.stringMatching(/ENOTDIR|EEXIST/) }),
    );
  });
});
