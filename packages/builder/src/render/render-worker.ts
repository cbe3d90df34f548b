import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { Renderer } from './renderer';
import type { WorkerArtifact, WorkerInit, WorkerMessage, WorkerPatch, WorkerTask } from './worker-protocol';

// A render worker: holds one parsed snapshot (patched between builds), renders the chunks it
// is given and writes the pages.
let snapshot: Snapshot | null = null;
let settings: Omit<WorkerInit, 'type' | 'snapshotJson'> | null = null;
let renderer: Renderer | null = null;
const madeDirs = new Set<string>();

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

// Pages are written by the thread pool while this thread renders the next ones: one write in
// flight, at most MAX_QUEUED pages waiting (then rendering waits for the writer).
const MAX_QUEUED = 32;
let writing: Promise<void> = Promise.resolve();
let queued = 0;
let writeError: unknown = null;

function write(outDir: string, file: string, html: string): void {
  const target = join(outDir, file);
  const dir = dirname(target);
  queued++;
  writing = writing.then(async () => {
    try {
      if (writeError === null) {
        if (!madeDirs.has(dir)) {
          await mkdir(dir, { recursive: true });
          madeDirs.add(dir);
        }
        await writeFile(target, html);
      }
    } catch (error) {
      writeError ??= error;
    } finally {
      queued--;
    }
  });
}

/** Waits until every page given to {@link write} is on disk; throws the first write error. */
async function written(): Promise<void> {
  await writing;
  if (writeError !== null) {
    const error = writeError;
    writeError = null;
    throw error;
  }
}

// Where each item of `snapshot.items` is, by id (made on the first patch after a load).
let positions: Map<string, number> | null = null;

/** The items after a patch: changed ones in place, new ones last, removed ones out (`items` is reused). */
function patchItems(items: SnapshotItem[], changed: readonly SnapshotItem[], removed: readonly string[]) {
  let next = items;
  if (removed.length > 0) {
    const gone = new Set(removed);
    next = items.filter((item) => !gone.has(item.id));
    positions = null;
  }
  positions ??= new Map(next.map((item, i) => [item.id, i]));
  for (const item of changed) {
    const at = positions.get(item.id);
    if (at === undefined) {
      positions.set(item.id, next.length);
      next.push(item);
    } else next[at] = item;
  }
  return next;
}

function load(): void {
  positions = null;
  renderer = new Renderer({
    snapshot: snapshot!,
    env: settings!.env,
    urls: settings!.urls,
    limits: settings!.limits,
    maxPageBytes: settings!.maxPageBytes,
    mediaBaseUrl: settings!.mediaBaseUrl,
  });
}

parentPort!.on('message', async (message: WorkerInit | WorkerPatch | WorkerTask) => {
  try {
    if (message.type === 'init') {
      const { snapshotJson, type: _type, ...rest } = message;
      snapshot = JSON.parse(snapshotJson) as Snapshot;
      settings = rest;
      madeDirs.clear();
      load();
      post({ type: 'ready' });
      return;
    }
    if (message.type === 'patch') {
      snapshot = { ...snapshot!, items: patchItems(snapshot!.items, message.items, message.removed) };
      madeDirs.clear();
      renderer!.update({ snapshot, items: message.items, removed: message.removed, urls: message.urls });
      post({ type: 'ready' });
      return;
    }
    const results: WorkerArtifact[] = [];
    const current = renderer!;
    let done = 0;
    for (const spec of message.specs) {
      const { html, ...rest } = current.render(spec);
      if (html !== undefined && message.outDir !== null) {
        write(message.outDir, spec.file, html);
        if (queued >= MAX_QUEUED) await written();
      }
      results.push(rest);
      done++;
      if (done % 25 === 0) post({ type: 'progress', done: 25 });
    }
    await written();
    if (done % 25 !== 0) post({ type: 'progress', done: done % 25 });
    post({ type: 'done', results });
  } catch (error) {
    post({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
});
