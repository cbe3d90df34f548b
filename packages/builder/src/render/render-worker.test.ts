import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixtureSnapshot } from '../../test/load-fixture';
import { build } from '../build';
import { createFolderTarget } from '../deploy/folder-target';
import {
  discardPrestartedWorkers,
  MIN_WORKER_MEMORY_MB,
  prestartedWorkerCount,
  prestartMemoryMb,
  prestartRenderWorkers,
  urlMapBytes,
  workerMemoryMb,
} from './render-pool';
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

describe('prestarted render workers', () => {
  afterEach(async () => {
    await discardPrestartedWorkers();
  });

  const buildInto = async (target: string) => {
    const result = await build({
      source: readFixtureSnapshot('blog'),
      target: createFolderTarget({ dir: target }),
      mode: 'full',
      workers: 2,
    });
    expect(result.ok).toBe(true);
    for (const artifact of result.manifest!.artifacts) {
      expect(hashText(readFileSync(join(target, artifact.file), 'utf8'))).toBe(artifact.hash);
    }
    return result;
  };

  it('are taken by the next build whose workers have their heap limit, and render as new ones', async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-prestart-'));
    const plain = await buildInto(join(dir, 'plain'));
    prestartRenderWorkers(2, MIN_WORKER_MEMORY_MB);
    expect(prestartedWorkerCount()).toBe(2);
    const prestarted = await buildInto(join(dir, 'prestarted'));
    // the build took one (this site's pages need one worker; the other waits for the next build)
    expect(prestartedWorkerCount()).toBe(1);
    expect(prestarted.manifest!.artifacts.map((a) => [a.key, a.hash])).toEqual(
      plain.manifest!.artifacts.map((a) => [a.key, a.hash]),
    );
  });

  it('are ended, not used, when the build wants another heap limit', async () => {
    dir = mkdtempSync(join(tmpdir(), 'trellis-prestart-'));
    prestartRenderWorkers(2, MIN_WORKER_MEMORY_MB + 64);
    await buildInto(join(dir, 'out'));
    expect(prestartedWorkerCount()).toBe(0);
  });

  it('get a heap limit from the URL map, not from the items (the workers read those from the shared store)', () => {
    const urls = (n: number) =>
      new Map(Array.from({ length: n }, (_, i) => [`post:post-${i}`, `/posts/post-${i}/`] as const));
    // 2 × (id + path) characters and an entry's overhead each
    expect(urlMapBytes(new Map([['a:b', '/x/']]))).toBe(2 * 6 + 64);
    expect(urlMapBytes({ 'a:b': '/x/', c: '/' })).toBe(2 * 6 + 64 + 2 * 2 + 64);
    expect(workerMemoryMb(urlMapBytes(urls(10_000)))).toBe(MIN_WORKER_MEMORY_MB);
    expect(workerMemoryMb(urlMapBytes(urls(100_000)))).toBe(MIN_WORKER_MEMORY_MB);
    // a million pages: about 140 MB of URL map, under 1 GB of heap (7.7 GB when sized from the records)
    const million = workerMemoryMb(urlMapBytes(urls(1_000_000)));
    expect(million).toBeGreaterThan(MIN_WORKER_MEMORY_MB);
    expect(million).toBeLessThan(1024);
    expect(workerMemoryMb(1e12)).toBe(8192);
  });

  it('are started for small snapshot files only', () => {
    expect(prestartMemoryMb(20_000_000)).toBe(MIN_WORKER_MEMORY_MB);
    expect(prestartMemoryMb(200_000_000)).toBeNull();
  });
});
