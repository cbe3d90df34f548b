import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactDeps } from '@trelliscms/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadFixture } from '../../test/load-fixture';
import type { WorkerArtifact } from '../render/worker-protocol';
import { DepsSpill } from './deps-spill';
import { RawDeps } from './raw-deps';

/** A page whose dependencies are `size` items with values of about `pad` characters (a few such pages fill a read block). */
function page(i: number, size: number, pad = 0): WorkerArtifact {
  const items: Record<string, string> = {};
  // integer-like keys come first in an object's key order: kept as they were
  for (let j = size; j > 0; j--)
    items[j % 3 === 0 ? String(j) : `post:p-${j}`] = `f:h${(i + j) % 7}:["title","é ü"]${'x'.repeat(pad)}`;
  const deps: ArtifactDeps = { items, templates: { 'post.liquid': `t${i}` }, queries: {} };
  return { key: `item:${i}`, file: `p/${i}/index.html`, hash: `h${i}`, bytes: i, deps };
}

describe('the dependency spill', () => {
  let parent = '';
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'trellis-spill-test-'));
  });
  afterEach(() => {
    rmSync(parent, { recursive: true, force: true });
  });
  const spillDirs = () => readdirSync(parent);

  it('takes pages’ dependencies out of the results and gives the same ones back, in order', async () => {
    const spill = await DepsSpill.open(parent);
    expect(spill).not.toBeNull();
    if (!spill) return;
    // the folder is gone as soon as the file is open: a killed build leaves nothing behind; the
    // open descriptor keeps the file until close()
    expect(spillDirs()).toEqual([]);
    // long lines (larger than the 4 MB read block) and short ones
    const pages = [page(0, 2), page(1, 5_000, 1_000), page(2, 0), page(3, 40), page(4, 3_000, 1_000)];
    const expected = pages.map((p) => JSON.stringify(p.deps));
    for (const p of pages) spill.put(p);
    expect(spill.size).toBe(5);
    for (const p of pages) expect(p.deps).toEqual({ items: {}, templates: {}, queries: {} });
    spill.restore();
    expect(pages.map((p) => JSON.stringify(p.deps))).toEqual(expected);
    // each distinct hash once, as the pool keeps them
    expect(pages[1]!.deps.items['post:p-1']).toBe(pages[4]!.deps.items['post:p-5']);
    await spill.close();
    expect(spillDirs()).toEqual([]);
  });

  it('writes dependencies given as their JSON text (from a render worker) as the object would be written', async () => {
    const spill = await DepsSpill.open(parent);
    if (!spill) throw new Error('no spill');
    // as a chunk's results come: the dependencies' JSON text in place of the object
    const sent = [page(0, 2), page(1, 5_000, 1_000), page(2, 0), page(4, 3_000, 1_000)];
    const expected = sent.map((p) => JSON.stringify(p.deps));
    const pages = sent.map((p, i) => ({ ...p, deps: expected[i] as unknown as ArtifactDeps }));
    for (const [i, p] of pages.entries()) spill.put(p, expected[i]);
    for (const p of pages) expect(p.deps).toEqual({ items: {}, templates: {}, queries: {} });
    spill.restore();
    expect(pages.map((p) => JSON.stringify(p.deps))).toEqual(expected);
    expect(pages.map((p) => p.deps.items)).toEqual(sent.map((p) => p.deps.items));
    // each distinct hash once, as for objects
    expect(pages[1]!.deps.items['post:p-1']).toBe(pages[3]!.deps.items['post:p-5']);
    // as text (raw): the very lines
    for (const [i, p] of pages.entries()) spill.put(p, expected[i]);
    spill.restore({ raw: true });
    expect(pages.map((p) => (p.deps as RawDeps).json)).toEqual(expected);
    await spill.close();
  });

  it('deletes its file when closed without being read back (a stopped build)', async () => {
    const spill = await DepsSpill.open(parent);
    if (!spill) throw new Error('no spill');
    spill.put(page(1, 3));
    await spill.close();
    expect(spillDirs()).toEqual([]);
    expect(() => spill.put(page(2, 3))).toThrow(/closed/);
  });

  it('keeps pages’ dependencies in memory once a write failed', async () => {
    const spill = await DepsSpill.open(parent);
    if (!spill) throw new Error('no spill');
    const first = page(1, 3);
    spill.put(first);
    spill.flush();
    // the next batch's write fails: a descriptor that cannot be written in place of the file's
    const inside = spill as unknown as { fd: number };
    const file = inside.fd;
    const readOnly = openSync(devNull, 'r');
    inside.fd = readOnly;
    const second = page(2, 3);
    const third = page(3, 4);
    const expected = [JSON.stringify(second.deps), JSON.stringify(third.deps)];
    try {
      spill.put(second);
      spill.put(third);
      spill.flush();
    } finally {
      inside.fd = file;
      closeSync(readOnly);
    }
    // the failed batch's pages have their dependencies back, and later pages keep theirs
    expect([JSON.stringify(second.deps), JSON.stringify(third.deps)]).toEqual(expected);
    const fourth = page(4, 2);
    const fourthDeps = fourth.deps;
    spill.put(fourth);
    expect(fourth.deps).toBe(fourthDeps);
    // given as JSON text (a worker's), the page gets the parsed object
    const fifth = page(5, 3);
    const fifthJson = JSON.stringify(fifth.deps);
    const fifthItems = fifth.deps.items;
    spill.put({ ...fifth, deps: fifthJson as unknown as ArtifactDeps }, fifthJson);
    spill.put(fifth, fifthJson);
    expect(fifth.deps).not.toBe(fifthJson);
    expect(fifth.deps.items).toEqual(fifthItems);
    expect(JSON.stringify(fifth.deps)).toBe(fifthJson);
    expect(spill.size).toBe(1);
    spill.restore();
    expect(Object.keys(first.deps.items)).toHaveLength(3);
    await spill.close();
  });

  it('writes its lines in batches, not a system call per page', async () => {
    const spill = await DepsSpill.open(parent);
    if (!spill) throw new Error('no spill');
    const inside = spill as unknown as { offset: number };
    const pages = Array.from({ length: 2_000 }, (_, i) => page(i, 20, 10));
    const expected = pages.map((p) => JSON.stringify(p.deps));
    for (const p of pages.slice(0, 10)) spill.put(p);
    // ten pages of about 1 KB: gathered, nothing written yet
    expect(inside.offset).toBe(0);
    expect(spill.size).toBe(10);
    for (const p of pages.slice(10)) spill.put(p);
    // past the batch size: written
    expect(inside.offset).toBeGreaterThan(0);
    spill.restore();
    expect(pages.map((p) => JSON.stringify(p.deps))).toEqual(expected);
    await spill.close();
  });

  it('gives the lines back as text when asked (raw), the same JSON once written', async () => {
    const spill = await DepsSpill.open(parent);
    if (!spill) throw new Error('no spill');
    const pages = [page(0, 2), page(1, 5_000, 1_000), page(2, 0), page(3, 40)];
    const expected = pages.map((p) => JSON.stringify(p.deps));
    const items = pages.map((p) => structuredClone(p.deps.items));
    for (const p of pages) spill.put(p);
    spill.restore({ raw: true });
    expect(pages.every((p) => p.deps instanceof RawDeps)).toBe(true);
    expect(pages.map((p) => (p.deps as RawDeps).json)).toEqual(expected);
    expect(pages.map((p) => JSON.stringify(p.deps))).toEqual(expected);
    expect(JSON.stringify(pages)).toBe(
      JSON.stringify(pages.map((p, i) => ({ ...p, deps: JSON.parse(expected[i]!) as unknown }))),
    );
    // read as dependencies, they are the values written
    expect(pages.map((p) => p.deps.items)).toEqual(items);
    expect(pages[0]!.deps.templates).toEqual({ 'post.liquid': 't0' });
    await spill.close();
  });

  it('has its file open and its folder gone before open() returns to the event loop', async () => {
    // a process killed at any moment of a build leaves no folder: none is made across an await
    const pending = DepsSpill.open(parent);
    expect(spillDirs()).toEqual([]);
    if (existsSync('/proc/self/fd')) {
      const open = readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/self/fd/${fd}`)];
        } catch {
          return [];
        }
      });
      expect(open.filter((target) => target.startsWith(parent))).toEqual([
        expect.stringMatching(/trellis-deps-.*deps\.jsonl \(deleted\)$/),
      ]);
    }
    const spill = await pending;
    await spill?.close();
    expect(spillDirs()).toEqual([]);
  });

  it('is not made where no folder can be made (the build keeps the dependencies in memory)', async () => {
    const file = join(parent, 'a-file');
    writeFileSync(file, 'x');
    expect(await DepsSpill.open(file)).toBeNull();
  });

  it('gives a worker build the same manifest as a build that keeps them in memory, and leaves no file', async () => {
    const fixture = loadFixture('blog');
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = parent;
    const put = vi.spyOn(DepsSpill.prototype, 'put');
    try {
      const spilled = await fixture.build({ mode: 'full', workers: 2, buildId: 'b-spilled' });
      // every page went through the spill, and its folder is gone
      expect(put).toHaveBeenCalledTimes(spilled.rendered);
      // each page's dependencies came from its worker as their JSON text
      expect(put.mock.calls.every(([, json]) => typeof json === 'string' && json.startsWith('{'))).toBe(true);
      expect(spillDirs().filter((name) => name.startsWith('trellis-deps-'))).toEqual([]);
      const kept = await fixture.build({ mode: 'full', workers: 0, buildId: 'b-kept' });
      expect(spilled.ok && kept.ok).toBe(true);
      const artifacts = spilled.manifest?.artifacts ?? [];
      expect(artifacts.some((a) => Object.keys(a.deps.items).length > 0)).toBe(true);
      expect(JSON.stringify(artifacts)).toBe(JSON.stringify(kept.manifest?.artifacts));
      // plain objects unless the caller only writes the manifest out (cms-build)
      expect(artifacts.some((a) => a.deps instanceof RawDeps)).toBe(false);
      const text = await fixture.build({
        mode: 'full',
        workers: 2,
        buildId: 'b-text',
        manifestWrittenOnly: true,
      });
      const textArtifacts = text.manifest?.artifacts ?? [];
      expect(
        textArtifacts.filter((a) => a.key.startsWith('item:')).every((a) => a.deps instanceof RawDeps),
      ).toBe(true);
      expect(JSON.stringify(textArtifacts)).toBe(JSON.stringify(kept.manifest?.artifacts));
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      put.mockRestore();
      fixture.cleanup();
    }
  });
});
