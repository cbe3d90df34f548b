import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { Snapshot } from '../snapshot/types';
import { Renderer } from './renderer';
import type { WorkerArtifact, WorkerInit, WorkerMessage, WorkerTask } from './worker-protocol';

// A render worker: holds one parsed snapshot, renders the chunks it is given, writes pages.
let renderer: Renderer | null = null;
let outDir: string | null = null;
const madeDirs = new Set<string>();

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

function write(file: string, html: string): void {
  const target = join(outDir!, file);
  const dir = dirname(target);
  if (!madeDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  }
  writeFileSync(target, html);
}

parentPort!.on('message', (message: WorkerInit | WorkerTask) => {
  try {
    if (message.type === 'init') {
      const snapshot = JSON.parse(message.snapshotJson) as Snapshot;
      renderer = new Renderer({
        snapshot,
        env: message.env,
        urls: message.urls,
        limits: message.limits,
        maxPageBytes: message.maxPageBytes,
        mediaBaseUrl: message.mediaBaseUrl,
      });
      outDir = message.outDir;
      post({ type: 'ready' });
      return;
    }
    const results: WorkerArtifact[] = [];
    let done = 0;
    for (const spec of message.specs) {
      const { html, ...rest } = renderer!.render(spec);
      if (html !== undefined && outDir !== null) write(spec.file, html);
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
