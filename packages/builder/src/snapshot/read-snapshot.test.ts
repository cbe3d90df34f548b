import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSnapshotFile, streamSnapshot } from './read-snapshot';
import {
  frameOf,
  LONG_TEXT_CHARS,
  packItems,
  packStore,
  SharedText,
  StoreReader,
  shareLongFields,
  spreadFields,
} from './shared-store';
import type { Snapshot } from './types';

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function fileOf(text: string): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), 'trellis-read-snapshot-'));
  const path = join(dir, `s-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, text);
  return path;
}

/** A snapshot with values that are hard to scan: escapes, quotes, brackets in strings, unicode, long texts. */
function trickySnapshot(): Snapshot {
  const long = (i: number) =>
    `Line "${i}" with \\ backslash, {braces} [brackets], tab\t, é ü 漢字 😀 and a newline\n`.repeat(6);
  return {
    format: 'trellis-snapshot',
    version: 1,
    site: { id: 'site:t', name: 'T "quoted" {x}', publicUrl: 'https://t.example' },
    types: [{ name: 'post', fields: [{ name: 'body', type: 'markdown' }] }],
    items: Array.from({ length: 12 }, (_, i) => ({
      id: `post:p-${i}`,
      type: 'post',
      fields: {
        title: `T ${i} \\"]}`,
        body: long(i),
        n: i * 1.5,
        ok: i % 2 === 0,
        none: null,
        list: [1, 'two', { three: [3] }],
        nested: { text: long(i + 100) },
        empty: '',
      },
      publishedEnvs: ['prod'],
      version: i,
    })),
    edges: [{ from: 'post:p-0', edge: 'RELATED', to: 'post:p-1' }],
    templates: [{ name: 'post', content: '{{ item.title }}' }],
    routes: [],
    exportedAt: '2026-01-01T00:00:00Z',
  } as Snapshot;
}

describe('streamSnapshot', () => {
  it('reads a file exactly as JSON.parse does, whatever the chunk size', async () => {
    const snapshot = trickySnapshot();
    const text = JSON.stringify(snapshot, null, 1);
    const path = await fileOf(text);
    const expected = JSON.parse(text);
    for (const chunk of [1, 2, 3, 7, 64, 1000, 1 << 20]) {
      const read = await streamSnapshot(path, chunk);
      expect(JSON.stringify(read), `chunk ${chunk}`).toBe(JSON.stringify(expected));
      expect(read).toEqual(expected);
    }
  });

  it('keeps long item texts in shared memory, read on demand', async () => {
    const snapshot = trickySnapshot();
    const path = await fileOf(JSON.stringify(snapshot));
    const read = (await streamSnapshot(path, 13)) as Snapshot;
    const fields = read.items[3]!.fields as Record<string, unknown>;
    const descriptor = Object.getOwnPropertyDescriptor(fields, 'body');
    expect(descriptor?.get).toBeTypeOf('function');
    expect((snapshot.items[3]!.fields.body as string).length).toBeGreaterThanOrEqual(LONG_TEXT_CHARS);
    expect(fields.body).toBe(snapshot.items[3]!.fields.body);
    // short values and nested objects stay plain
    expect(Object.getOwnPropertyDescriptor(fields, 'title')?.get).toBeUndefined();
    expect(Object.keys(fields)).toEqual(Object.keys(snapshot.items[3]!.fields));
    // a spread (what a transform does) and an assignment give plain values
    expect({ ...fields }.body).toBe(snapshot.items[3]!.fields.body);
    fields.body = 'changed';
    expect(fields.body).toBe('changed');
    expect(JSON.parse(JSON.stringify(fields)).body).toBe('changed');
  });

  it('refuses what is not a JSON object', async () => {
    for (const bad of ['[1, 2]', '{"a": 1', '{"a": [1, 2}', '{"a": 1} x', '{"a" 1}', '{"a": tru}']) {
      await expect(streamSnapshot(await fileOf(bad), 3), bad).rejects.toThrow();
    }
  });

  it('readSnapshotFile streams large files and checks them', async () => {
    const snapshot = trickySnapshot();
    const filler = 'x'.repeat(1000);
    const big = {
      ...snapshot,
      items: Array.from({ length: 9000 }, (_, i) => ({
        id: `post:${i}`,
        type: 'post',
        fields: { title: `t${i}`, body: `${filler}${i}` },
      })),
    };
    const path = await fileOf(JSON.stringify(big));
    const read = await readSnapshotFile(path);
    expect(read.items).toHaveLength(9000);
    expect(read.items[8999]!.fields.body).toBe(`${filler}8999`);
    expect(JSON.stringify(read.items)).toBe(JSON.stringify(big.items));
    await expect(readSnapshotFile(await fileOf(`${JSON.stringify(big).slice(0, -1)}`))).rejects.toMatchObject(
      {
        code: 'invalid_snapshot',
      },
    );
  });
});

describe('packItems / StoreReader', () => {
  it('gives the workers the same items, long texts shared and not copied', async () => {
    const snapshot = trickySnapshot();
    const plain = JSON.parse(JSON.stringify(snapshot.items));
    // items read from a file (long texts already shared) and plain items pack the same
    const read = (await streamSnapshot(await fileOf(JSON.stringify(snapshot)), 1 << 16)) as Snapshot;
    for (const items of [plain, read.items]) {
      const { store } = packStore({ items, edges: [] }, 'dev', () => true);
      const reader = new StoreReader(structuredClone(store));
      const unpacked = items.map((_: unknown, i: number) => reader.read(i));
      expect(JSON.stringify(unpacked)).toBe(JSON.stringify(plain));
      expect(Object.getOwnPropertyDescriptor(unpacked[0]!.fields, 'body')?.get).toBeTypeOf('function');
    }
    const fromFile = packItems(read.items).shared;
    // the file's shared segment is passed on as it is (no copy of the texts)
    expect(fromFile.texts.length).toBe(1);
  });
});

describe('frameOf', () => {
  it('leaves the items and edges out of what the workers get by structured clone', () => {
    const snapshot = {
      format: 'trellis-snapshot',
      version: 1,
      site: { id: 's', name: 'S' },
      types: [],
      items: [{ id: 'post:a', type: 'post', fields: {} }],
      edges: [{ from: 'post:a', edge: 'X', to: 'post:a' }],
      templates: [],
    } as unknown as Snapshot;
    const frame = frameOf(snapshot);
    expect('edges' in frame || 'items' in frame).toBe(false);
    expect(frame.site).toBe(snapshot.site);
  });

  it('readSnapshotFile gives edges the same values as JSON.parse', async () => {
    const snapshot = trickySnapshot();
    snapshot.edges = [
      { from: 'post:p-1', edge: 'RELATED', to: 'post:p-2' },
      { from: 'post:p-2', edge: 'RELATED', to: 'post:missing', props: { a: 1 } },
    ];
    const text = JSON.stringify(snapshot);
    const read = await readSnapshotFile(await fileOf(text));
    expect(JSON.stringify(read.edges)).toBe(JSON.stringify(JSON.parse(text).edges));
  });
});

describe('spreadFields', () => {
  it('copies fields as a spread does, long values still read from shared memory', () => {
    const body = 'b'.repeat(LONG_TEXT_CHARS + 10);
    const fields: Record<string, unknown> = JSON.parse(
      `{"title":"T","body":${JSON.stringify(body)},"__proto__":{"x":1},"n":2}`,
    );
    const expected = JSON.stringify({ ...fields });
    shareLongFields({ id: 'post:a', type: 'post', fields }, new SharedText());
    const copy = spreadFields(fields);
    expect(JSON.stringify(copy)).toBe(expected);
    expect(Object.keys(copy)).toEqual(['title', 'body', '__proto__', 'n']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    // the copy's body is an accessor of the shared text, not a string of its own
    expect(Object.getOwnPropertyDescriptor(copy, 'body')?.get).toBeTypeOf('function');
    expect(copy.body).toBe(body);
    // assigning over it makes it a plain value in place (as on the spread object)
    copy.body = 'short';
    expect(Object.keys(copy)).toEqual(['title', 'body', '__proto__', 'n']);
    expect(copy.body).toBe('short');
    expect(fields.body).toBe(body);
    // fields without shared values: a plain spread
    expect(spreadFields({ a: 1 })).toEqual({ a: 1 });
  });
});
