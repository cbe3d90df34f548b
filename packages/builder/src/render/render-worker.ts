import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { Snapshot } from '../snapshot/types';
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

function write(outDir: string, file: string, html: string): void {
  const target = join(outDir, file);
  const dir = dirname(target);
  if (!madeDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  }
  writeFileSync(target, html);
}

function load(): void {
  renderer = new Renderer({
    snapshot: snapshot!,
    env: settings!.env,
    urls: settings!.urls,
    limits: settings!.limits,
    maxPageBytes: settings!.maxPageBytes,
    mediaBaseUrl: settings!.mediaBaseUrl,
  });
}

parentPort!.on('message', (message: WorkerInit | WorkerPatch | WorkerTask) => {
  try {
    if (message.type === 'init') {
      const { snapshotJson, type: _type, ...rest } = message;
      snapshot = JSON.parse(snapshotJson) as Snapshot;
      settings = rest;
      load();
      post({ type: 'ready' });
      return;
    }
    if (message.type === 'patch') {
      const byId = new Map(snapshot!.items.map((item) => [item.id, item]));
      for (const id of message.removed) byId.delete(id);
      for (const item of message.items) byId.set(item.id, item);
      snapshot = { ...snapshot!, items: [...byId.values()] };
      settings = { ...settings!, urls: message.urls };
      load();
      post({ type: 'ready' });
      return;
    }
    madeDirs.clear();
    const results: WorkerArtifact[] = [];
    let done = 0;
    for (const spec of message.specs) {
      const { html, ...rest } = renderer!.render(spec);
      if (html !== undefined && message.outDir !== null) write(message.outDir, spec.file, html);
      results.push(rest);
      done++;
      if (done % 25 === 0) post({ type: 'progress', done: 25 });
    }
    if (done % 25 !== 0) post({ type: 'progress', done: done % 25 });
    post({ type: 'done', results });
  } catch (error) {
    post({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
});
