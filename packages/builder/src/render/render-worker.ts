import { parentPort } from 'node:worker_threads';
import type { Snapshot, SnapshotItem } from '../snapshot/types';
import { type RenderedArtifact, Renderer } from './renderer';
import type { WorkerInit, WorkerMessage, WorkerPatch, WorkerTask } from './worker-protocol';

// A render worker: holds one parsed snapshot (patched between builds), renders the chunks it
// is given and hands the pages back (the build writes them through its deploy target).
const port = parentPort;
if (!port) throw new Error('render-worker runs as a worker thread');

/** What the worker holds once loaded. */
interface Held {
  snapshot: Snapshot;
  renderer: Renderer;
}
let held: Held | null = null;

function post(message: WorkerMessage): void {
  port?.postMessage(message);
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

function loaded(): Held {
  if (!held) throw new Error('the worker was given work before a snapshot');
  return held;
}

port.on('message', (message: WorkerInit | WorkerPatch | WorkerTask) => {
  try {
    if (message.type === 'init') {
      const { snapshotJson, type: _type, ...settings } = message;
      const snapshot = JSON.parse(snapshotJson) as Snapshot;
      positions = null;
      held = {
        snapshot,
        renderer: new Renderer({
          snapshot,
          env: settings.env,
          urls: settings.urls,
          limits: settings.limits,
          maxPageBytes: settings.maxPageBytes,
          mediaBaseUrl: settings.mediaBaseUrl,
        }),
      };
      post({ type: 'ready' });
      return;
    }
    if (message.type === 'patch') {
      const current = loaded();
      const snapshot = {
        ...current.snapshot,
        items: patchItems(current.snapshot.items, message.items, message.removed),
      };
      held = { snapshot, renderer: current.renderer };
      current.renderer.update({
        snapshot,
        items: message.items,
        removed: message.removed,
        urls: message.urls,
      });
      post({ type: 'ready' });
      return;
    }
    const { renderer } = loaded();
    const results: RenderedArtifact[] = [];
    let done = 0;
    for (const spec of message.specs) {
      const result = renderer.render(spec);
      if (message.pages) results.push(result);
      else {
        const { html: _html, ...rest } = result;
        results.push(rest);
      }
      done++;
      if (done % 25 === 0) post({ type: 'progress', done: 25 });
    }
    if (done % 25 !== 0) post({ type: 'progress', done: done % 25 });
    post({ type: 'done', results });
  } catch (error) {
    post({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
});
