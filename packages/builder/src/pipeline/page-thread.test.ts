import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/load-fixture';
import { tempDir } from '../../test/temp-dir';
import { createFolderTarget } from '../deploy/folder-target';
import { folderWriter } from '../deploy/folder-writer';
import type { DeployTarget, WriteSession } from '../deploy/types';
import { heapWatch } from './heap-watch';
import { pageThreadMinPages, threadPageWriter } from './page-thread';

/** Every file under `dir` (relative path → bytes), `.trellis/` left out. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        if (name !== '.trellis') walk(path);
      } else files.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

/** Pages as the render pool gives them: views of one chunk's buffer, and a string. */
function chunkPages(prefix: string, count: number) {
  const texts = Array.from(
    { length: count },
    (_, i) => `<p>${prefix} ${i} — ünïcødé ${'x'.repeat(i % 7)}</p>\n`,
  );
  const encoded = texts.map((text) => new TextEncoder().encode(text));
  const bytes = new Uint8Array(encoded.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  return encoded.map((part, i) => {
    bytes.set(part, at);
    const html = i === 0 ? texts[0]! : bytes.subarray(at, at + part.byteLength);
    at += part.byteLength;
    return { file: `${prefix}/p${i}/index.html`, html };
  });
}

const defaultMin = pageThreadMinPages.value;
afterEach(() => {
  pageThreadMinPages.value = defaultMin;
});

describe('the threaded page writer', () => {
  it("writes the same files as the folder target's writeFile, into new, existing and nested folders", async () => {
    const root = tempDir('page-thread');
    const threaded = join(root, 'threaded');
    const plain = join(root, 'plain');
    // a folder of an earlier build, a file to be replaced, and a folder made by another writer
    for (const dir of [threaded, plain]) {
      mkdirSync(join(dir, 'blog/p1'), { recursive: true });
      writeFileSync(join(dir, 'blog/p1/index.html'), 'an older page, longer than the new one');
    }
    const batches = [chunkPages('blog', 40), chunkPages('tags/a/b', 3), chunkPages('blog', 2)];
    const writer = threadPageWriter(threaded, 256);
    const write = folderWriter(plain);
    for (const pages of batches) {
      expect(writer.add(pages)).toBeUndefined();
      for (const page of pages) await write(page.file, page.html);
    }
    await writer.drain();
    const mine = filesOf(threaded);
    expect(mine.size).toBe(43);
    expect(mine).toEqual(filesOf(plain));
    expect(mine.get('blog/p1/index.html')?.toString()).toBe('<p>blog 1 — ünïcødé x</p>\n');
  });

  it('asks the renderer to wait while too many pages are unwritten, and goes on once written', async () => {
    const root = tempDir('page-thread-behind');
    const writer = threadPageWriter(root, 50);
    expect(writer.add(chunkPages('a', 30))).toBeUndefined();
    const behind = writer.add(chunkPages('b', 30));
    expect(behind).toBeInstanceOf(Promise);
    await behind;
    await writer.drain();
    expect(filesOf(root).size).toBe(60);
  });

  it('stops at a failed write: drain throws it, later pages are not written, nothing lands after', async () => {
    const root = tempDir('page-thread-fail');
    // a file where a folder has to go
    writeFileSync(join(root, 'blocked'), 'a file');
    const writer = threadPageWriter(root, 256);
    writer.add(chunkPages('first', 2));
    writer.add([{ file: 'blocked/p0/index.html', html: 'x' }]);
    writer.add(chunkPages('later', 2));
    await expect(writer.drain()).rejects.toThrow(/^a page could not be written: .*blocked/);
    expect(writer.add(chunkPages('after', 2))).toBeUndefined();
    expect([...filesOf(root).keys()].sort()).toEqual([
      'blocked',
      'first/p0/index.html',
      'first/p1/index.html',
    ]);
  });

  it("writes a build's pages on its thread with the same files as through the session", async () => {
    const fixture = loadFixture('blog');
    try {
      const folder = tempDir('page-thread-build');
      const written: string[] = [];
      // the folder target's sessions, recording what goes through writeFile
      const recording = (target: DeployTarget): DeployTarget => ({
        ...target,
        async open(params) {
          const session = await target.open(params);
          const wrapped: WriteSession = {
            ...session,
            writeFile: (path, data) => {
              written.push(path);
              return session.writeFile(path, data);
            },
          };
          return wrapped;
        },
      });
      pageThreadMinPages.value = 1;
      const threaded = await fixture.build({
        mode: 'full',
        workers: 2,
        target: recording(createFolderTarget({ dir: join(folder, 'threaded') })),
      });
      pageThreadMinPages.value = defaultMin;
      const plain = await fixture.build({
        mode: 'full',
        workers: 2,
        target: createFolderTarget({ dir: join(folder, 'plain') }),
      });
      expect(threaded.ok && plain.ok).toBe(true);
      const pageFiles = new Set(
        (threaded.manifest?.artifacts ?? [])
          .filter((artifact) => threaded.renderedKeys.includes(artifact.key))
          .map((artifact) => artifact.file),
      );
      expect(pageFiles.size).toBeGreaterThan(5);
      expect(written.filter((file) => pageFiles.has(file))).toEqual([]);
      expect(filesOf(join(folder, 'threaded'))).toEqual(filesOf(join(folder, 'plain')));
    } finally {
      fixture.cleanup();
    }
  });
});

describe('the build thread heap watch', () => {
  it('collects once the heap has grown by the amount given, not before', () => {
    const watch = heapWatch(64 * 1024 * 1024, 0);
    expect(watch.check()).toBe(false);
    // about 100 MB of live arrays of numbers (1 MB each): past the growth given
    const held = Array.from({ length: 100 }, (_, i) =>
      Array.from({ length: 131_072 }, (_, j) => i + j + 0.5),
    );
    expect(watch.check()).toBe(true);
    // what is held stays: no growth since the collection
    expect(watch.check()).toBe(false);
    expect(held[99]![0]).toBe(99.5);
  });

  it('waits for a growth in proportion to the heap in use when that is larger', () => {
    const used = getHeapStatistics().used_heap_size;
    // ten times the heap in use: the 100 MB below is far from it
    const watch = heapWatch(1, 10);
    const held = Array.from({ length: 100 }, (_, i) =>
      Array.from({ length: 131_072 }, (_, j) => i + j + 0.5),
    );
    expect(getHeapStatistics().used_heap_size - used).toBeGreaterThan(64 * 1024 * 1024);
    expect(watch.check()).toBe(false);
    expect(held[0]![0]).toBe(0.5);
  });
});
